"""The rule table: complete, sourced, and each rule finds its own examples and not its clean lines."""

import re
from pathlib import Path

import pytest

from audit.rules import BACKENDS, RuleTableError, load_rules

RULES = load_rules()


def test_table_loads_with_every_backend_and_a_source_for_every_block():
    assert len(RULES.rules) >= 20
    assert set(RULES.baseline) == set(BACKENDS)
    for rule in RULES.rules:
        for block in rule.blocks.values():
            assert block.source.title
            # every source is a vendor or project document with a URL, except the seed playbook
            assert block.source.url.startswith("https://") or block.source.key == "playbook"


@pytest.mark.parametrize("rule", RULES.rules, ids=lambda r: r.id)
def test_rule_matches_its_examples_and_not_its_clean_lines(rule):
    for line in rule.examples:
        assert rule.pattern.search(line), f"{rule.id} misses its own example {line!r}"
    for line in rule.clean:
        assert not rule.pattern.search(line), f"{rule.id} fires on its clean line {line!r}"


def _table(tmp_path: Path, body: str) -> Path:
    text = (
        (Path(RULES.path).read_text(encoding="utf-8").split("\nrules:\n")[0]) + "\nrules:\n" + body
    )
    path = tmp_path / "rules.yaml"
    path.write_text(text, encoding="utf-8")
    return path


RULE = """  - id: x-rule
    title: "x"
    kinds: [python]
    pattern: '{pattern}'
    scope: per_file
    examples: ["torch.cuda.synchronize()"]
    blocks:
      cpu: {{why: "w", equivalent: "e", weeks: {weeks}, source: pytorch_get_started}}
"""


@pytest.mark.parametrize(
    ("pattern", "weeks", "message"),
    [
        ("torch\\.cuda(", "[0.1, 0.2, 0.3]", "pattern does not compile"),
        ("torch", "[0.3, 0.2, 0.1]", "low <= base <= high"),
        ("torch", "[0.1, 0.2]", "weeks must be [low, base, high]"),
    ],
)
def test_bad_rule_is_rejected_naming_the_rule(tmp_path, pattern, weeks, message):
    path = _table(tmp_path, RULE.format(pattern=pattern, weeks=weeks))
    with pytest.raises(RuleTableError, match=re.escape(message)) as info:
        load_rules(path)
    assert "x-rule" in str(info.value)


def test_unknown_source_is_rejected(tmp_path):
    body = RULE.format(pattern="torch", weeks="[0.1, 0.2, 0.3]").replace(
        "pytorch_get_started", "nowhere"
    )
    with pytest.raises(RuleTableError, match="source 'nowhere' is not in the sources table"):
        load_rules(_table(tmp_path, body))
