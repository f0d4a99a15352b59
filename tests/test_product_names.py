"""Names as people write them (issue 14, point 2): case, spaces, dots, hyphens and underscores do not matter, a
vendor before a product is optional, and derived spellings never capture ordinary words."""

import pytest

from assistant.answering.product_names import ProductNames, name_key
from assistant.answering.routing import ProductInfo, detect

NODE = ProductInfo("nodejs", "nodejs", [], ["v18", "v20", "v22"])
SPARK = ProductInfo("spark", "spark", [], ["3.4.4", "3.5.5", "4.0.0"])
KAFKA = ProductInfo("apache-kafka", "apache-kafka", [], ["3.7", "3.8"])
ELB = ProductInfo("aws-elb", "AWS Elastic Load Balancing", ["alb"], ["2022.1", "2024.1"])
PG = ProductInfo("postgresql", "PostgreSQL", [], ["15", "16"])
K8S = ProductInfo("kube_scheduler", "kube_scheduler", [], ["1.29", "1.30"])
CATALOGUE = [NODE, SPARK, KAFKA, ELB, PG, K8S]


@pytest.mark.parametrize("question, product, source", [
    ("How do I use Node.js streams?", "nodejs", "named"),
    ("NodeJS worker threads", "nodejs", "named"),
    ("node js fetch timeout", "nodejs", "named"),
    ("NODE_JS cluster module", "nodejs", "named"),
    ("node-js async hooks", "nodejs", "named"),
    ("Apache Spark shuffle partitions", "spark", "named"),
    ("spark.sql.shuffle.partitions in Spark", "spark", "named"),
    ("Kafka consumer lag keeps growing", "apache-kafka", "alias"),
    ("apache kafka retention.ms", "apache-kafka", "named"),
    ("Apache-Kafka exactly once", "apache-kafka", "named"),
    ("aws elb idle timeout", "aws-elb", "named"),
    ("AWS_ELB health checks", "aws-elb", "named"),
    ("ALB listener rules", "aws-elb", "alias"),
    ("Postgre SQL vacuum", "postgresql", "named"),
    ("postgresql's autovacuum", "postgresql", "named"),
    ("kube scheduler profiles", "kube_scheduler", "named"),
    ("Kube-Scheduler plugins", "kube_scheduler", "named"),
])
def test_names_match_however_written(question, product, source):
    routing = detect(question, CATALOGUE)
    assert (routing.product, routing.product_source) == (product, source)


@pytest.mark.parametrize("question", [
    "how do I post data to a REST endpoint?",
    "what is a node in a cluster?",
    "the load balancer drops requests",  # "load balancing" words are not the product
    "our cloud storage bucket is full",
    "a spark plug for my car",  # a name is a name: this one is routed (below), ordinary words are not
    "which data types are supported?",
])
def test_ordinary_words_are_not_derived_aliases(question):
    routing = detect(question, CATALOGUE)
    if "spark" in question:
        assert routing.product == "spark"  # the folder name itself, never a derived spelling
    else:
        assert routing.product is None, routing


def test_a_folder_named_with_its_major_version_is_found_by_the_name_alone():
    # The held-back Jinja docs sit in `jinja2/`, as the package is called; users write "jinja 3.0", "Jinja's filters".
    jinja = ProductInfo("jinja2", "jinja2", [], ["2.11.3", "3.0.3", "3.1.4"])
    boto = ProductInfo("boto3", "boto3", [], ["1.34"])
    web = ProductInfo("web3", "web3", [], ["6.0"])
    werkzeug = ProductInfo("werkzeug", "werkzeug", [], ["1.0.1", "2.0.3", "3.0.6"])  # also has a 3.0 release
    catalogue = [jinja, boto, web, werkzeug, NODE]
    routing = detect("what changed in jinja 3.0", catalogue)
    assert (routing.product, routing.product_source, routing.releases) == ("jinja2", "alias", ["3.0.3"])
    assert detect("Jinja's tojson filter", catalogue).product == "jinja2"
    assert detect("boto retry config", catalogue).product == "boto3"
    assert detect("a web page that shows the time", catalogue).product is None  # "web" is an ordinary word
    assert detect("jinjas are not a thing", catalogue).product is None
    route53 = ProductInfo("route53", "route53", [], ["2024"])
    assert detect("route traffic to the closest region", [route53, jinja]).product is None  # 53 is no version


def test_vendor_stripped_alias_is_dropped_when_it_is_an_ordinary_word():
    cloud = ProductInfo("google-cloud", "Google Cloud", [], ["2024"])
    storage = ProductInfo("azure-storage", "Azure Storage", [], ["2024"])
    names = ProductNames([cloud, storage])
    assert names.named("my cloud bill is high") is None
    assert names.named("azure storage account keys").product == "azure-storage"
    assert names.named("Google Cloud IAM").product == "google-cloud"


def test_a_vendor_folder_is_found_by_the_bare_product_name():
    names = ProductNames([ProductInfo("apache-spark", "apache-spark", [], ["3.5.5"]), PG])
    assert names.named("Spark 3.5 shuffle partitions").product == "apache-spark"
    assert names.named("Spark 3.5 shuffle partitions").kind == "alias"
    hive = ProductNames([ProductInfo("apache-hive", "apache-hive", [], ["4.0"])])
    assert hive.named("a hive of activity") is None  # an ordinary word stays one
    assert hive.named("Apache Hive metastore").product == "apache-hive"


def test_a_derived_alias_another_product_claims_is_dropped():
    prom = ProductInfo("prometheus", "Prometheus", [], ["v3"])
    promtail = ProductInfo("prom", "prom", [], ["1"])
    names = ProductNames([prom, promtail])
    assert names.named("prom config").product == "prom"
    assert names.named("Prometheus config").product == "prometheus"


def test_lookup_accepts_any_spelling_of_a_pin():
    names = ProductNames(CATALOGUE)
    assert names.lookup("Node.js").name == "nodejs"
    assert names.lookup("AWS ELB").name == "aws-elb"
    assert names.lookup("mysql") is None
    assert name_key(" Node.JS ") == name_key("node_js") == "nodejs"


def test_named_release_with_written_name():
    assert detect("NodeJS 20 fetch API", CATALOGUE).releases == ["v20"]
    assert detect("Node.js v18 streams", CATALOGUE).releases == ["v18"]
    assert detect("Apache Spark 3.5.5 AQE", CATALOGUE).releases == ["3.5.5"]
