"""`assistant eval` end to end over the real etcd index (search-only), and the judge metrics with FakeChat replies."""

import json
from pathlib import Path

import pytest

from assistant.backends.chat import FakeChat
from assistant.cli import evaluate as cli_eval
from assistant.components import build_intent_classifier, build_pipeline
from assistant.evaluation import EvalConfig, EvalItem, Gold, load_dataset, run_eval
from assistant.evaluation.dataset import Dataset

DEV = Path(__file__).resolve().parents[2] / "shared" / "eval" / "dev"
RELEASE_IDS = ("rel-008", "rel-016", "rel-018", "rel-048", "rel-062", "rel-065")
INTENT_IDS = ("int-012", "int-018", "int-021")


@pytest.fixture(scope="module")
def small_set(tmp_path_factory) -> Path:
    rows = [json.loads(line) for name in ("releases.jsonl", "intents.jsonl", "conversations.jsonl")
            for line in (DEV / name).read_text().splitlines() if line.strip()]
    keep = [r for r in rows if r["id"] in RELEASE_IDS + INTENT_IDS or r["id"] == "conv-010"]
    path = tmp_path_factory.mktemp("evalset") / "small.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in keep))
    return path


def test_search_only_eval_prints_one_json_object_and_writes_a_report(etcd_index, small_set, tmp_path, capsys):
    out = tmp_path / "out"
    code = cli_eval.main(["eval", str(small_set), "--search-only", "--preset", "naive", "default", "--k", "3",
                          "--json", "--out", str(out)], etcd_index.settings)
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    meta = report["meta"]
    assert meta["k"] == 3 and meta["search_only"] and list(meta["presets"]) == ["naive", "default"]
    assert meta["datasets"][0]["items"] == 10 and len(meta["datasets"][0]["sha256"]) == 64 and meta["date"]
    assert {(x["product"], x["release"]) for x in meta["library"]} == {("etcd", r) for r in etcd_index.releases}

    for name in ("naive", "default"):
        p = report["presets"][name]
        assert p["n"] == 10 and p["errors"] == 0
        m = p["metrics"]
        assert m["hit@k"]["n"] == 6  # answerable: 5 release questions with gold and the conversation
        for key in ("hit@k", "mrr", "context_recall@k", "contamination@k", "release_correct"):
            assert 0.0 <= m[key]["mean"] <= 1.0, key
        assert "must_contain" not in m and "answer_similarity" not in m  # search-only: no answer metrics
        lat = p["cost"]["latency_ms"]
        assert lat["retrieval"]["mean_ms"] > 0 and lat["total"]["p95_ms"] >= lat["total"]["mean_ms"] * 0.5
        assert p["cost"]["llm_calls_per_question"] == 0
        assert {"release_specific", "missing", "conversation"} <= set(p["by_kind"])

    default, naive = report["presets"]["default"], report["presets"]["naive"]
    assert default["metrics"]["release_correct_named"]["mean"] == 1.0
    assert default["metrics"]["contamination@k"]["mean"] == 0.0
    assert default["metrics"]["hit@k"]["mean"] >= 0.6
    assert naive["intent"]["accuracy"] is None and default["intent"]["accuracy"] is not None
    assert default["declined"]["invalid"]["recall"] == 1.0  # "sdfkj sdlkfj sldkfj"
    assert naive["declined"]["declined"]["recall"] == 0.0  # naive has no query check
    assert default["knowledge_missing"]["support"] == 1

    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == 20
    first = json.loads(lines[0])
    assert {"id", "preset", "metrics", "ranked", "timings_ms", "trace", "quality"} <= set(first)
    md = (out / "report.md").read_text()
    assert "| metric | naive | default |" in md and "hit@3" in md and "![quality](quality.png)" in md
    assert (out / "quality.png").stat().st_size > 1000 and (out / "latency.png").exists()


class JudgeFake(FakeChat):
    """A FakeChat whose reply depends on which judge prompt it is shown (so the order of calls does not matter)."""

    def __init__(self, replies: dict[str, str]) -> None:
        super().__init__()
        self.by_prompt = replies

    def chat(self, messages, **kw):
        system = messages[0]["content"]
        key = next(k for k in self.by_prompt if k in system)
        self.enqueue([self.by_prompt[key]])
        return super().chat(messages, **kw)


VALID = {"grade an answer": '{"verdict": "correct", "reason": "same patch release"}',
         "Split the answer": '```json\n{"statements": [{"statement": "added in 3.4.29", "supported": true},'
                             ' {"statement": "works on Windows", "supported": false}]}\n```',
         "against criteria": '{"C1": true, "C2": true, "I1": false, "I2": false}',
         "Compare two answers": '{"coverage": "A", "specificity": "tie"}'}
GARBAGE = {k: "I think it is fine!" for k in VALID}
GARBAGE["grade an answer"] = '{"verdict": "excellent"}'


@pytest.fixture(scope="module")
def answering_pipeline(etcd_index):
    answers = FakeChat(default_reply="The /livez and /readyz endpoints were added in v3.4.29 [1].")
    return build_pipeline(etcd_index.settings, llm=answers, intent=build_intent_classifier(etcd_index.settings, extra_examples=[]))


def _item():
    return EvalItem(id="rel-008", question="In etcd 3.4, starting from which patch release are the /livez and "
                    "/readyz endpoints available?", answer="/livez and /readyz were added in v3.4.29.",
                    gold=[Gold("v3.4/op-guide/monitoring.md")], product="etcd", target_releases=["v3.4"],
                    intent="fact_verification", kind="release_specific", must_contain=["3.4.29"])


def test_judge_metrics_with_valid_and_garbage_verdicts(answering_pipeline):
    ds = Dataset([_item()], [{"path": "inline", "sha256": "", "items": 1}])
    judge = JudgeFake(VALID)
    report = run_eval(answering_pipeline, ds, EvalConfig(presets=["default", "naive"], judge=judge, search_only=False))
    rec = report.records_for("default")[0]
    m = rec["metrics"]
    assert m["must_contain"] == 1.0 and 0.5 < m["answer_similarity"] <= 1.0
    assert m["judge_correctness"] == 1.0 and m["judge_faithfulness"] == 0.5 and m["judge_intent_criteria"] == 1.0
    assert rec["llm_calls"] == 1 and rec["prompt_tokens"] > 0  # the answer only: judge calls are not the preset's cost
    assert all(c["temperature"] == 0.0 and c["json_mode"] for c in judge.calls)
    assert "/livez" in judge.history[0][1]["content"]
    pair = report.pairwise["naive vs default"]
    # the fake prefers whichever answer is shown first: a position bias, so every criterion is a tie
    assert pair["coverage"] == {"win": 0, "tie": 1, "loss": 0, "n": 1, "win_rate": 0.0} and pair["judge_failures"] == 0
    assert report.presets["default"]["cost"]["llm_calls_per_question"] == 1

    bad = run_eval(answering_pipeline, ds, EvalConfig(presets=["default", "naive"], judge=JudgeFake(GARBAGE),
                                                      search_only=False))
    m = bad.records_for("default")[0]["metrics"]
    assert m["judge_correctness"] is None and m["judge_correctness_valid"] is False
    assert m["judge_faithfulness"] is None and m["judge_intent_criteria_valid"] is False
    assert bad.presets["default"]["judge_failures"] == 3
    assert "judge_correctness" not in bad.presets["default"]["metrics"]
    assert bad.pairwise["naive vs default"]["judge_failures"] == 1


def test_dev_sets_load_as_they_are():
    ds = load_dataset(DEV)
    assert len(ds.items) == sum(s["items"] for s in ds.sources) and len(ds.sources) == 4
    conv = next(i for i in ds.items if i.id == "conv-001")
    assert conv.question == "and max_shards?" and len(conv.history) == 2
    assert next(i for i in ds.items if i.id == "rel-009").target_releases == ["v2.53.0", "v3.5.0"]
