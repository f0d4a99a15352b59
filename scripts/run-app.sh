#!/usr/bin/env bash
# Creates .venv if needed, installs torch (CPU wheel) first, then the project, then starts the app on localhost.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d .venv ] || python3 -m venv .venv
. .venv/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q torch==2.13.0
python -m pip install -q -e .
exec streamlit run app.py "$@"
