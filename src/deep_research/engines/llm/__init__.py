"""The LLM engine: a chat model (any LangChain provider) behind the :class:`Engine` interface.

``engine.py`` is the engine; ``prompts.py`` its prompts; ``structured.py`` asks for structured
output; ``model_calls.py`` and ``validation.py`` make and check the calls; ``outline.py`` plans
the report's outline; ``budgets.py``, ``fitting.py`` and ``catalog.py`` fit the prompts in the
model's context window, ``windows.py`` reads it from the model's server where it says;
``providers.py`` builds a chat model from ``provider:model``; ``replies.py`` deals with replies
cut short or sent without usage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deep_research._exports import lazy_exports

if TYPE_CHECKING:
    from deep_research.engines.llm.catalog import ModelLimits, estimate_tokens, limits_of
    from deep_research.engines.llm.engine import LLMEngine, Role
    from deep_research.engines.llm.prompts import SENTENCE_MARK
    from deep_research.engines.llm.providers import REQUEST_TIMEOUT_SECONDS, build_chat_model

__all__ = [
    "LLMEngine",
    "ModelLimits",
    "REQUEST_TIMEOUT_SECONDS",
    "Role",
    "SENTENCE_MARK",
    "build_chat_model",
    "estimate_tokens",
    "limits_of",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "LLMEngine": "deep_research.engines.llm.engine",
        "Role": "deep_research.engines.llm.engine",
        "SENTENCE_MARK": "deep_research.engines.llm.prompts",
        "build_chat_model": "deep_research.engines.llm.providers",
        "REQUEST_TIMEOUT_SECONDS": "deep_research.engines.llm.providers",
        "ModelLimits": "deep_research.engines.llm.catalog",
        "limits_of": "deep_research.engines.llm.catalog",
        "estimate_tokens": "deep_research.engines.llm.catalog",
    },
)
