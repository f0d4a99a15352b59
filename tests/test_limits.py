"""Limit questions reach the guide's limits page (issue 15, AWS ranking): real pages of the shared corpora, and a real
three-product library (the AWS ELB guide's `load-balancer-limits.md`, etcd's `dev-guide/limit.md`)."""

from dataclasses import replace

import pytest

from assistant.answering.limits import asks_limit, for_question, guide_names, limit_pages
from assistant.answering.presets import get_preset, with_overrides
from assistant.components import build_intent_classifier, build_pipeline
from conftest import CORPORA


def test_limit_questions_in_words():
    for q in ("How many local secondary indexes can a DynamoDB table have?", "What is the longest timeout I can set?",
              "Largest single document Amazon Kendra will index?", "max items in a DynamoDB transaction",
              "What is the upper limit of Amazon RDS DB instances?", "How long does GuardDuty keep findings?",
              "can I have more than one trusted IP list active in GuardDuty?", "more than 20 rules per listener?"):
        assert asks_limit(q), q
    for q in ("What are the three states of Application Load Balancers?", "Can I run my AWS Lambda in a VPC?",
              "How do I set up TLS?", "Is my cluster up to date?",
              "how often does CloudTrail write digest files?", "What is the most common cause of slow scrapes?"):
        assert not asks_limit(q), q


def test_limits_pages_of_the_guide_the_question_names():
    # Of the 16 AWS limits pages, a question naming its service gets its guide's alone: CodePipeline's limits page
    # (which names Lambda actions) no longer outranks the Lambda guide's, CloudTrail's no longer GuardDuty's.
    paths = [str(p.relative_to(CORPORA / "awsdocs" / "documents")) for p in (CORPORA / "awsdocs").rglob("*.md")]
    pages = limit_pages(paths)
    assert len(pages) >= 14
    for question, guide in (("How long does GuardDuty keep findings?", "amazon-guardduty-user-guide"),
                            ("Minimum refresh interval for a data set in IoT Analytics?", "aws-iotanalytics-developer-guide"),
                            ("how many times does Lambda retry an async invoke at most?", "aws-lambda-developer-guide"),
                            ("How many listeners can an Application Load Balancer have?",
                             "elb-application-load-balancers-user-guide"),
                            ("max attachments per transit gateway", "aws-transit-gateway-guide")):
        assert {p.split("/", 1)[0] for p in for_question(pages, question)} == {guide}, question
    # No guide named (nor an etcd folder, which is no guide's): every limits page stays.
    assert for_question(pages, "launch template versions limit") == pages
    assert for_question(pages, "how many records can a table hold") == pages
    assert for_question(["dev-guide/limit.md"], "How big can the etcd database get?") == ["dev-guide/limit.md"]
    assert "iotanalytic" in guide_names("aws-iotanalytics-developer-guide")


def test_limits_pages_by_their_file_name():
    paths = [str(p.relative_to(CORPORA)) for p in CORPORA.rglob("*.md")]
    found = {p.rsplit("/", 1)[-1] for p in limit_pages(paths)}
    assert {"Limits.md", "CHAP_Limits.md", "gettingstarted-limits.md", "transit-gateway-quotas.md", "quotas.md",
            "guardduty_limits.md", "load-balancer-limits.md", "limit.md"} <= found
    # Limitations, unlimited modes and API types are no limits page.
    assert not found & {"MySQL.KnownIssuesAndLimitations.md", "burstable-performance-instances-unlimited-mode.md",
                        "debugger-known-limitations.md"}


@pytest.fixture(scope="module")
def pipeline(three_products):
    return build_pipeline(three_products, llm=None, intent=build_intent_classifier(three_products, extra_examples=[]))


@pytest.mark.parametrize("question", [
    "How many listeners can an Application Load Balancer have?",
    "How many security groups can an application load balancer have?",
    "How many certificates per load balancer?",
    "How big can the etcd database get?",
])
def test_a_limit_asked_in_words_reaches_the_limits_page(pipeline, question):
    # The narrative page on the feature (listeners, security groups, HTTPS listeners, maintenance) wins on the
    # question's words; the quotas list is found when the limits pages are searched on their own as well.
    default = get_preset("default")
    without = with_overrides(default, retrieval=replace(default.retrieval, limit_k=0))
    top = {}
    for name, preset in (("with", default), ("without", without)):
        res = pipeline.ask(question, search_only=True, preset=preset)
        top[name] = list(dict.fromkeys(s.path.rsplit("/", 1)[-1] for s in res.sources))[:3]
    assert top["with"][0] in ("load-balancer-limits.md", "limit.md"), top
    assert top["without"][0] not in ("load-balancer-limits.md", "limit.md"), top
