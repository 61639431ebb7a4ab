"""The exception hierarchy of deep_research.

Every error the package raises on purpose is a ``DeepResearchError``; each class also
subclasses the builtin it resembles, so callers that catch ``ValueError`` keep working::

    DeepResearchError
    ├── ConfigurationError (ValueError)     a setting or a run-level knob is invalid
    │   ├── CorpusTooLargeError             a corpus folder exceeds its file or byte caps
    │   ├── CorpusOutsideRootsError         a served run named a folder it may not read
    │   └── ModelNotAllowedError            a served run picked a model not offered
    ├── InvalidQuestionError (ValueError)   the question is empty or too long
    ├── InvalidInputError (ValueError)      a line of ``deep-research verify`` input is malformed
    ├── InvalidIdError (ValueError)         a thread id holds characters ids may not hold
    ├── SourceError (RuntimeError)          a source provider failed
    │   ├── CorpusNotFoundError (FileNotFoundError)
    │   ├── CorpusUnreadableError           nothing in a corpus folder could be read
    │   ├── UnreadableDocumentError         a corpus file was skipped (with its reason)
    │   ├── FetchBlockedError               the SSRF guard refused a URL
    │   └── FetchSkippedError               a page's type or size is not accepted
    ├── EngineError (RuntimeError)          a reasoning engine failed
    │   ├── StructuredOutputError           the model kept returning malformed output
    │   └── ContextOverflowError            a prompt did not fit the model's context window
    └── StoreError (RuntimeError)           the domain store refused a read or a write
        ├── DatabaseUnavailableError (ConnectionError)  the database did not answer in time
        ├── NotFoundError (LookupError)     no such chat or session for this user
        ├── ChatClosedError                 a deleted chat takes no more writes; a busy one
        │                                   is not erased
        └── LimitExceededError              a per-user limit (chats, messages) is reached

The command line turns any of these into one line on stderr and a non-zero exit.
"""

from __future__ import annotations


class DeepResearchError(Exception):
    """Base class of every deliberate error of this package."""


class ConfigurationError(DeepResearchError, ValueError):
    """A setting or a run-level knob is missing or out of range."""


class CorpusTooLargeError(ConfigurationError):
    """A local corpus folder holds more files or bytes than its limits allow."""


class CorpusOutsideRootsError(ConfigurationError):
    """A served run named a corpus folder outside the operator's corpus roots."""


class ModelNotAllowedError(ConfigurationError):
    """A served run picked a model the operator does not offer."""


class InvalidQuestionError(DeepResearchError, ValueError):
    """The research question is empty or longer than the limit."""


class InvalidInputError(DeepResearchError, ValueError):
    """Input to a command is malformed (its message names the line and what was expected)."""


class InvalidIdError(DeepResearchError, ValueError):
    """A thread id holds a period, a slash or another character ids may not hold."""


class SourceError(DeepResearchError, RuntimeError):
    """A source provider could not search or read."""


class CorpusNotFoundError(SourceError, FileNotFoundError):
    """The local corpus folder does not exist or is not a folder."""


class CorpusUnreadableError(SourceError):
    """Not one file of a local corpus folder could be read (the message says why, by kind)."""


class UnreadableDocumentError(SourceError):
    """A corpus document was not read; ``reason`` says why (see ``sources.documents``)."""

    def __init__(self, reason: str, detail: str) -> None:
        """Name the reason (``encrypted``, ``no_text``, ``too_large``, ...) and its detail."""
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


class FetchBlockedError(SourceError):
    """The SSRF guard refused to fetch a URL (scheme, or an address it resolves to)."""


class FetchSkippedError(SourceError):
    """A page was not read: its content type is not supported or it exceeds the byte cap."""


class EngineError(DeepResearchError, RuntimeError):
    """A reasoning engine could not complete a task."""


class StructuredOutputError(EngineError):
    """The model did not return valid structured output within its attempts."""


class ContextOverflowError(EngineError):
    """The endpoint refused a prompt longer than the model's context window."""


class StoreError(DeepResearchError, RuntimeError):
    """The domain store refused a read or a write."""


class DatabaseUnavailableError(StoreError, ConnectionError):
    """The database could not be reached, or did not answer within its timeout."""


class NotFoundError(StoreError, LookupError):
    """No such chat or session for this user (another user's ids read as not found)."""


class LimitExceededError(StoreError):
    """A per-user limit (chats per user, messages per chat) would be exceeded."""


class ChatClosedError(StoreError):
    """A deleted chat takes no more writes, and a chat with a run in progress is not erased."""
