"""Tests against a real PostgreSQL and a real `langgraph dev` server."""
