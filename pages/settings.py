"""Settings: Ollama host and model (picked from the server's list, pulled with progress), model locations,
retrieval parameters; secrets go to the OS keyring, everything else to data/settings.json."""

import streamlit as st

from assistant import app as svc

services = svc.get_services()
s, fixed, state = services.settings, svc.env_fixed(), st.session_state
st.title("Settings")
if fixed:
    st.caption("Fixed by environment variables (they win over saved settings): " + ", ".join(sorted(fixed)))

st.subheader("Language model")
host = st.text_input("Ollama host", s.ollama_host, disabled="ollama_host" in fixed)
c1, c2, c3 = st.columns([1, 2, 1], vertical_alignment="bottom")
if c1.button("Test connection", icon=":material/lan:"):
    ok, message, models = svc.check_connection(host, s.ollama_token_name)
    state.ollama_models = models
    (st.success if ok else st.error)(message)
models = list(dict.fromkeys([s.ollama_model, *state.get("ollama_models", [])]))

with st.form("settings"):
    model = st.selectbox("Model (from the server's list, or type a name)", models, accept_new_options=True,
                         disabled="ollama_model" in fixed)
    backend = st.selectbox("Backend", svc.BACKENDS, index=svc.BACKENDS.index(s.llm_backend),
                           help="auto: Ollama when it runs with the model, else the embedded model",
                           disabled="llm_backend" in fixed)
    timeout = st.number_input("Ollama timeout (s)", 5.0, 3600.0, float(s.ollama_timeout_s), step=5.0,
                              disabled="ollama_timeout_s" in fixed)
    st.markdown("**Models on this machine** (a name, a folder, or a name under models/ or the Hugging Face cache)")
    embedding = st.text_input("Embedding model", s.embedding_model, disabled="embedding_model" in fixed,
                              help="Saving another model re-indexes every release in the background (the sidebar "
                                   "shows it); until it is done, a release not yet re-indexed is searched by words "
                                   "only.")
    reranker = st.text_input("Reranker (cross-encoder)", s.reranker_model, disabled="reranker_model" in fixed)
    device = st.selectbox("Device", svc.DEVICES, index=svc.DEVICES.index(s.device), disabled="device" in fixed,
                          help="Where the embedder, the reranker and the embedded model run: auto takes a CUDA GPU, "
                               "then Apple MPS, then the CPU. The index does not depend on it.")
    for line in svc.model_status(s):
        st.caption(svc.md_escape(line))
    st.markdown("**Retrieval**")
    preset = st.selectbox("Default preset", list(svc.PRESETS), index=list(svc.PRESETS).index(s.preset),
                          disabled="preset" in fixed)
    top_k = st.number_input("Sources per answer", 1, 20, int(s.top_k), disabled="top_k" in fixed)
    if st.form_submit_button("Save settings", type="primary"):
        try:
            changes = {"ollama_host": host, "ollama_model": model, "llm_backend": backend, "ollama_timeout_s": timeout,
                       "embedding_model": embedding, "reranker_model": reranker, "device": device, "preset": preset, "top_k": top_k}
            services.refresh(svc.save_settings(s.data_dir, {k: v for k, v in changes.items() if k not in fixed}))
            st.success(f"Saved to {s.data_dir / svc.SETTINGS_FILE}.")
        except ValueError as exc:
            st.error(str(exc))

pull_name = c2.text_input("Model to pull", model or s.ollama_model)
if c3.button("Pull model", icon=":material/download:"):
    services.start_pull(pull_name, host)


def pull_progress() -> None:
    p = services.pull.snapshot()
    if p.label:
        done = (p.completed or 0) / p.total if p.total else 0.0
        st.progress(done, text=f"{p.label}: {p.status or 'starting'}")
        if p.error:
            st.error(p.error)


pull = services.pull.snapshot()
if pull.label:
    st.fragment(run_every=1.0 if pull.running else None)(pull_progress)()

st.subheader("Secrets")
st.caption("Stored in the OS keyring only, never in a file; the settings keep the entry's name.")
with st.form("secret"):
    name = st.text_input("Keyring entry for the Ollama bearer token", s.ollama_token_name or svc.DEFAULT_TOKEN_NAME)
    token = st.text_input("Token", type="password")
    if st.form_submit_button("Store in keyring"):
        try:
            svc.store_secret(name, token)
            services.refresh(svc.save_settings(s.data_dir, {"ollama_token_name": name}))
            st.success(f"Stored in the keyring as '{name}'.")
        except svc.KeyringUnavailable as exc:
            st.error(exc.message)
        except ValueError as exc:
            st.error(str(exc))
