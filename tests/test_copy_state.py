"""pbem.game.copy_state and Fixed: copies share the fixed tables at a state's top and
nothing else, and a fixed table refuses every write."""

from __future__ import annotations

import copy
import json

import pytest

from pbem.game import Fixed, copy_state, derived, fixed


def a_state() -> dict:
    return {"data": fixed({"cities": {"a": {"name": "Alpha", "links": ["b"]}}, "n": 3}),
            "players": [{"gold": 1, "hand": ["x"]}], "turn": {"phase": "move"}, "log": []}


def test_a_copy_shares_the_fixed_table_and_nothing_that_changes() -> None:
    state = a_state()
    clone = copy_state(state)
    assert clone == state and list(clone) == list(state)  # same values, same key order
    assert clone["data"] is state["data"]
    assert clone["players"] is not state["players"]
    clone["players"][0]["hand"].append("y")
    clone["turn"]["phase"] = "pay"
    assert state["players"][0]["hand"] == ["x"] and state["turn"]["phase"] == "move"


def test_a_state_without_fixed_tables_and_any_part_of_one_are_copied_whole() -> None:
    plain = json.loads(json.dumps(a_state()))  # as read back from a file: plain dicts
    clone = copy_state(plain)
    assert clone == plain and clone["data"] is not plain["data"]
    part = copy_state(plain["players"])
    assert part == plain["players"] and part[0] is not plain["players"][0]


def test_deepcopy_agrees_and_a_fixed_table_deeper_down_is_copied_whole() -> None:
    state = a_state()
    assert copy.deepcopy(state)["data"] is state["data"]
    nested = {"keep": {"data": state["data"]}}
    clone = copy_state(nested)
    assert clone == nested and isinstance(clone["keep"]["data"], Fixed)


@pytest.mark.parametrize("write", [
    lambda d: d.__setitem__("n", 4), lambda d: d.pop("n"), lambda d: d.update(n=4),
    lambda d: d.setdefault("m", 1), lambda d: d.clear(), lambda d: d.popitem(),
    lambda d: d.__delitem__("n"), lambda d: d.__ior__({"n": 4}),
    lambda d: d["cities"]["a"].update(name="Beta"),
])
def test_every_write_to_a_fixed_table_is_refused(write) -> None:  # type: ignore[no-untyped-def]
    state = a_state()
    with pytest.raises(TypeError, match="fixed at set-up"):
        write(state["data"])
    assert state["data"]["n"] == 3 and state["data"]["cities"]["a"]["name"] == "Alpha"


def test_what_is_derived_from_a_fixed_table_is_worked_out_once() -> None:
    state = a_state()
    calls: list[int] = []

    def build() -> list[str]:
        calls.append(1)
        return sorted(state["data"]["cities"])

    first = derived(state["data"], "names", build)
    assert derived(copy_state(state)["data"], "names", build) is first and len(calls) == 1
    plain = json.loads(json.dumps(state["data"]))
    assert derived(plain, "names", build) == first and len(calls) == 2  # no cache on it
