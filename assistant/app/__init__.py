"""What the Streamlit pages call: in, what a page gathered (a question, uploads, settings, a vote); out, what it
renders (answers with traces, library state, insight frames, job progress). Pages import this package only.
"""

from assistant.answering.intent import INTENTS
from assistant.answering.presets import PRESETS
from assistant.app.changes import ChangeRow, display_markdown
from assistant.app.config import (
                                  BACKENDS,
                                  DEFAULT_TOKEN_NAME,
                                  SETTINGS_FILE,
                                  env_fixed,
                                  load_settings,
                                  save_settings,
                                  store_secret,
)
from assistant.app.connection import (
                                  LLMState,
                                  check_connection,
                                  connect_llm,
                                  model_status,
)
from assistant.app.conversations import Conversation, Conversations, conversation_markdown
from assistant.app.db import AppDB
from assistant.app.insights import (
                                  feedback_by_intent,
                                  feedback_frame,
                                  feedback_over_time,
                                  golden_set,
                                  golden_set_jsonl,
                                  intent_mix,
                                  latency_by_stage,
                                  unanswered,
)
from assistant.app.jobs import Job, JobState
from assistant.app.live import STOPPED_NOTICE, LiveAnswer, LiveView
from assistant.app.presentation import (
                                  RELEASE_SOURCES,
                                  download_label,
                                  format_eta,
                                  md_escape,
                                  md_escape_block,
                                  open_label,
                                  product_line,
                                  source_label,
)
from assistant.app.services import Services, get_services
from assistant.app.sources import PdfView, Unavailable
from assistant.app.uploads import (
                                  UploadLimits,
                                  UploadReport,
                                  clean_name,
                                  clean_relpath,
                                  save_uploads,
)
from assistant.backends.device import DeviceUnavailable
from assistant.components import StoreLocked
from assistant.evaluation import DatasetError, charts, views
from assistant.library.catalogue import LibraryError
from assistant.library.locate import SectionView
from assistant.secrets import KeyringUnavailable

DEVICES = ["auto", "cpu", "cuda", "mps"]

__all__ = [
    "AppDB", "BACKENDS", "ChangeRow", "Conversation", "display_markdown", "Conversations", "DEVICES", "DeviceUnavailable", "PdfView", "SectionView",
    "Unavailable", "conversation_markdown", "DEFAULT_TOKEN_NAME", "DatasetError", "INTENTS", "Job", "JobState",
    "KeyringUnavailable", "LLMState", "LibraryError", "LiveAnswer", "LiveView", "STOPPED_NOTICE", "PRESETS",
    "RELEASE_SOURCES", "SETTINGS_FILE", "Services", "StoreLocked", "UploadLimits", "UploadReport", "charts",
    "check_connection", "clean_name", "download_label", "md_escape_block", "clean_relpath", "connect_llm",
    "env_fixed", "feedback_by_intent", "feedback_frame", "feedback_over_time", "format_eta", "get_services",
    "golden_set", "golden_set_jsonl", "intent_mix", "latency_by_stage", "load_settings", "md_escape", "model_status",
    "open_label", "product_line", "save_settings", "save_uploads", "source_label", "store_secret", "unanswered", "views",
]
