"""Issue items from the third clause audit of Red Dog Junction: the rules text for Posse
(RDJ-V2), the rascals' naming (RDJ-A10, in test_rdj_crew.py), Justin's boost with an empty
bank (RDJ-V5 / RDJ-F3) and the refusals of an empty supply (RDJ-F3)."""

from __future__ import annotations

from click.testing import CliRunner

from pbem.cli import main


def test_RDJ_V2_rules_text_documents_the_posse_draft() -> None:
    """`pbem rules` said "posse (the crew draft: not yet supported)" and documented `pick`
    for Trail Boss only, though Posse plays."""
    result = CliRunner().invoke(main, ["rules", "red-dog-junction"])
    assert result.exit_code == 0, result.output
    text = result.output
    assert "not yet supported" not in text
    assert "posse (2-5 players: the crew draft" in text
    assert "pick s12                   Posse: the crew draft." in text
    assert "Set-up choice (Trail Boss only)" not in text
    assert "- Posse (2-5 players): the rulebook's draft" in text
