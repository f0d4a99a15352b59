"""What the Streamlit pages call: in, what a page gathered (a question, uploads, settings, a vote); out, what it
renders (answers with traces, library state, insight frames, job progress). Pages import this package only.
"""

from assistant.answering.intent import INTENTS
from assistant.answering.presets import PRESETS
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
                                  format_eta,
                                  md_escape,
                                  open_label,
                                  source_label,
)
from assistant.app.services import Services, get_services
from assistant.app.uploads import (
                                  UploadLimits,
                                  UploadReport,
                                  clean_name,
                                  clean_relpath,
                                  save_uploads,
)
from assistant.backends.device import DeviceUnavailable
from assistant.components import StoreLocked

DEVICES = ["auto", "cpu", "cuda", "mps"]
from assistant.evaluation import DatasetError, charts, views
from assistant.library.catalogue import LibraryError
from assistant.secrets import KeyringUnavailable

__all__ = [
    "AppDB", "BACKENDS", "DEFAULT_TOKEN_NAME", "DEVICES", "DatasetError", "DeviceUnavailable", "INTENTS", "Job", "JobState", "KeyringUnavailable",
    "LLMState", "LibraryError", "LiveAnswer", "LiveView", "STOPPED_NOTICE", "PRESETS", "RELEASE_SOURCES", "SETTINGS_FILE", "Services", "StoreLocked",
    "UploadLimits", "UploadReport", "charts", "check_connection", "clean_name", "clean_relpath", "connect_llm",
    "env_fixed", "feedback_by_intent", "feedback_frame", "feedback_over_time", "format_eta", "get_services",
    "golden_set", "golden_set_jsonl", "intent_mix", "latency_by_stage", "load_settings", "md_escape", "model_status",
    "open_label", "save_settings", "save_uploads", "source_label", "store_secret", "unanswered", "views",
]
