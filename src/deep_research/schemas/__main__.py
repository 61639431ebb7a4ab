"""``python -m deep_research.schemas``: regenerate the shipped JSON Schemas."""

from __future__ import annotations

import sys

from deep_research.schemas import write_report_schema

if __name__ == "__main__":
    sys.stdout.write(f"wrote {write_report_schema()}\n")
