"""Movement on the highway: RM-M1..M7, as a table of positions with legal and illegal moves.

The representative board: 20 road spaces (0..19); warehouses A@1 north, B@5 south,
C@9 north, D@11 south, E@14 north, F@18 south. Heading east keeps to the south lane.
"""

from __future__ import annotations

from itertools import product

import pytest
from rm_support import clear_road, placed, truck

from pbem.game import IllegalMoveError
from pbem_games.road_master import GAME
from pbem_games.road_master.board import HEADINGS, backward_options, forward_options

Spot = tuple[int, str, str]  # (x, lane, heading) or a letter


def _setup(mover: Spot | str, others: list[tuple[int, str]]) -> dict:
    t = placed(4)
    state = t.state
    clear_road(state)
    if isinstance(mover, str):
        truck(state, 0, mover)
    else:
        truck(state, 0, "road", *mover)
    for seat, (x, lane) in enumerate(others, start=1):
        truck(state, seat, "road", x, lane, "east")
    return state


# (case, mover, blockers (east-bound trucks), legal moves, illegal moves with a reason fragment)
TABLE = [
    ("keep right on an empty road", (2, "south", "east"), [],
     ["forward 1", "forward 4"], [("forward 3 left", "keep to the right lane")]),
    ("overtake one truck", (2, "south", "east"), [(4, "south")],
     ["forward 2 left", "forward 3", "forward 4"], [("forward 2", "taken by bob")]),
    ("pull out behind a truck", (2, "south", "east"), [(4, "south")],
     ["forward 1 left"], []),
    ("back in lane between two trucks", (2, "south", "east"), [(4, "south"), (6, "south")],
     ["forward 4 left", "forward 3"], [("forward 4", "taken")]),
    ("two trucks in a row cannot be passed at once", (2, "south", "east"),
     [(4, "south"), (5, "south")], ["forward 2 left", "forward 1"],
     [("forward 4", "back into its lane"), ("forward 3 left", "back into its lane")]),
    ("side by side block the road", (2, "south", "east"), [(4, "south"), (4, "north")],
     ["forward 1", "forward 1 left"], [("forward 2", "taken"), ("forward 3", "taken"),
                                        ("forward 4", "taken")]),
    ("left lane to approach a warehouse on the left", (7, "south", "east"), [],
     ["forward 2 left", "forward 3 into C"],
     [("forward 1 left", "keep to the right lane"), ("forward 2 into C", "does not lead there")]),
    ("right-side warehouse from the right lane", (3, "south", "east"), [],
     ["forward 3 into B", "forward 2"], [("forward 2 left", "keep to the right lane")]),
    ("leaving a warehouse onto the left lane", "C", [],
     ["forward 1 exit east left", "forward 2 exit east", "forward 1 exit west",
      "forward 4 exit west"],
     [("forward 2 exit east left", "keep to the right lane")]),
    ("leaving past a truck beside the warehouse uses the far lane", "C", [(9, "north")],
     ["forward 1 exit east", "forward 2 exit west", "forward 1 exit west left"],
     [("forward 1 exit east left", "taken by bob")]),
    ("the east end of the road", (19, "south", "east"), [],
     [], [("forward 1", "does not lead there")]),
    ("the west end of the road", (0, "north", "west"), [],
     [], [("forward 1", "does not lead there")]),
]


@pytest.mark.parametrize(("case", "mover", "others", "legal", "illegal"), TABLE, ids=[r[0] for r in TABLE])
def test_RM_M1_to_M6_movement_table(case, mover, others, legal, illegal) -> None:
    """RM-M1..M6: forward moves from hand-set positions, legal and refused with a reason."""
    state = _setup(mover, others)
    options = forward_options(state, 0)
    for move in legal:
        assert move in options, f"{case}: {move} should be legal; legal are {list(options)}"
        assert move in GAME.legal_moves(state, 0)
        GAME.apply(_copy(state), 0, move)
    for move, reason in illegal:
        assert move not in options
        with pytest.raises(IllegalMoveError, match=reason):
            GAME.apply(_copy(state), 0, move)


def _copy(state: dict) -> dict:
    import copy

    return copy.deepcopy(state)


def test_RM_M1_forward_moves_one_to_four_spaces_along_the_heading() -> None:
    """RM-M1: forward 1-4 spaces along the heading; a fifth is refused."""
    state = _setup((2, "south", "east"), [])
    trial = _copy(state)
    GAME.apply(trial, 0, "forward 4")
    moved = trial["trucks"][0]
    assert (moved["x"], moved["lane"], moved["heading"]) == (6, "south", "east")
    with pytest.raises(IllegalMoveError, match="1 to 4 spaces"):
        GAME.apply(_copy(state), 0, "forward 5")


def test_RM_M1_entering_and_leaving_a_warehouse_cost_one_space_each() -> None:
    """RM-M1: into B from its road space is 1 space; out of B onto the road is 1 space."""
    state = _setup((5, "south", "east"), [])
    assert forward_options(state, 0)["forward 1 into B"] == ("wh", "B", "", "")
    truck(state, 0, "B")
    assert forward_options(state, 0)["forward 1 exit east"] == ("road", 5, "south", "east")
    assert forward_options(state, 0)["forward 1 exit west left"] == ("road", 5, "south", "west")


def test_RM_M1_leaving_a_warehouse_may_take_either_heading() -> None:
    """RM-M1: a truck leaving chooses east or west; on the road it never turns."""
    state = _setup("D", [])
    options = forward_options(state, 0)
    assert options["forward 3 exit east"] == ("road", 13, "south", "east")
    assert options["forward 3 exit west"] == ("road", 9, "north", "west")
    road = _setup((6, "south", "east"), [])
    assert all(pos[3] == "east" for pos in forward_options(road, 0).values() if pos[0] == "road")


def test_RM_M2_keeps_right_relative_to_heading() -> None:
    """RM-M2: heading west the right lane is north; ending south without reason is refused."""
    state = _setup((16, "north", "west"), [])
    assert forward_options(state, 0)["forward 3"] == ("road", 13, "north", "west")
    with pytest.raises(IllegalMoveError, match="keep to the right lane"):
        GAME.apply(_copy(state), 0, "forward 3 left")


def test_RM_M3_back_in_lane_between_each_truck_passed() -> None:
    """RM-M3: two trucks one space apart can be passed only by cutting back in between."""
    state = _setup((2, "south", "east"), [(4, "south"), (6, "south")])
    trial = _copy(state)
    GAME.apply(trial, 0, "forward 4 left")  # 3, 4 left (passing bob), 5 right, 6 left
    assert (trial["trucks"][0]["x"], trial["trucks"][0]["lane"]) == (6, "north")


def test_RM_M4_two_trucks_side_by_side_block_the_road() -> None:
    """RM-M4: trucks level in both lanes stop everything behind them; a lane-space holds one."""
    state = _setup((2, "south", "east"), [(4, "south"), (4, "north")])
    assert max(int(m.split()[1]) for m in forward_options(state, 0)) == 1
    lone = _setup((2, "south", "east"), [(3, "south")])
    with pytest.raises(IllegalMoveError, match="taken by bob"):
        GAME.apply(lone, 0, "forward 1")


def test_RM_M4_a_warehouse_holds_any_number_of_trucks() -> None:
    """RM-M4 (ruling): any number of trucks may stand in one warehouse."""
    t = placed(6, where="C")
    assert all(tr["where"] == "C" for tr in t.state["trucks"])
    assert GAME.invariants(t.state) == []


def test_RM_M5_may_stop_in_left_lane_only_overtaking_or_at_a_warehouse() -> None:
    """RM-M5: ending a move in the left lane: mid-overtake yes, beside a warehouse yes, else no."""
    overtaking = _setup((2, "south", "east"), [(4, "south")])
    assert "forward 2 left" in forward_options(overtaking, 0)
    at_house = _setup((7, "south", "east"), [])
    assert "forward 2 left" in forward_options(at_house, 0)  # beside C, to turn in
    nothing = _setup((2, "south", "east"), [])
    assert not [m for m in forward_options(nothing, 0) if m.endswith("left")]


def test_RM_M6_road_ends_do_not_join() -> None:
    """RM-M6: no move wraps from one end of the road to the other."""
    east_end = _setup((19, "south", "east"), [])
    assert forward_options(east_end, 0) == {}
    west_end = _setup((0, "north", "west"), [])
    assert forward_options(west_end, 0) == {}
    assert "backward" not in backward_options(_setup((0, "south", "east"), []), 0)


def test_RM_M7_backward_one_space_same_lane() -> None:
    """RM-M7: backward is one space against the heading in the same lane."""
    state = _setup((7, "south", "east"), [])
    assert backward_options(state, 0) == {"backward": ("road", 6, "south", "east")}
    blocked = _setup((7, "south", "east"), [(6, "south")])
    with pytest.raises(IllegalMoveError, match="behind the truck is taken"):
        GAME.apply(blocked, 0, "backward")


def test_RM_M7_backward_into_the_warehouse_beside_the_truck() -> None:
    """RM-M7 (ruling): from a warehouse's road space, in the lane beside it, back into it."""
    state = _setup((5, "south", "east"), [])
    trial = _copy(state)
    GAME.apply(trial, 0, "backward into B")
    assert trial["trucks"][0]["where"] == "B"
    wrong_lane = _setup((5, "north", "east"), [])
    with pytest.raises(IllegalMoveError, match="not in the lane beside warehouse B"):
        GAME.apply(wrong_lane, 0, "backward into B")


def test_RM_M7_a_truck_placed_at_the_start_leaves_forward() -> None:
    """RM-M7 (ruling): a truck placed in a warehouse on its first turn has no heading
    yet to back out with; its first move out is a forward one, choosing the heading."""
    state = _setup("B", [])
    assert backward_options(state, 0) == {}
    with pytest.raises(IllegalMoveError, match="leaves by a forward move"):
        GAME.apply(state, 0, "backward")


def test_rm_m7_backing_out_of_a_warehouse_onto_the_right_lane_of_its_heading() -> None:
    """RM-M7: 「道路上または倉庫内で1スペース後ろに移動させます」: backward, like forward, works
    in a warehouse. A truck that drove into B heading east backs out onto B's road
    space in the right lane of that heading (south), still heading east; one that came
    in heading west backs out into the north lane."""
    state = _setup((3, "south", "east"), [])
    GAME.apply(state, 0, "forward 3 into B")
    assert backward_options(state, 0) == {"backward": ("road", 5, "south", "east")}
    GAME.apply(state, 0, "backward")
    moved = state["trucks"][0]
    assert (moved["where"], moved["x"], moved["lane"], moved["heading"]) == ("road", 5, "south", "east")
    assert GAME.invariants(state) == []
    west = _setup((7, "north", "west"), [])
    GAME.apply(west, 0, "forward 3 into B")
    assert backward_options(west, 0) == {"backward": ("road", 5, "north", "west")}


def test_rm_m7_backing_into_a_warehouse_and_out_again_keeps_the_heading() -> None:
    """RM-M7: backing into a warehouse keeps the truck's heading, so backing out again
    comes back to the same lane-space; a truck standing there blocks backing out."""
    state = _setup((5, "south", "west"), [])  # left lane beside B: it may stand here
    GAME.apply(state, 0, "backward into B")
    assert state["trucks"][0]["heading"] == "west"
    assert backward_options(state, 0) == {"backward": ("road", 5, "north", "west")}
    truck(state, 1, "road", 5, "north", "east")
    assert backward_options(state, 0) == {}
    with pytest.raises(IllegalMoveError, match="bob's truck is there"):
        GAME.apply(state, 0, "backward")


def test_forward_from_a_warehouse_without_heading_is_asked_for() -> None:
    """Leaving a warehouse: 'forward 2' is ambiguous, the heading must be said."""
    from pbem.game import AmbiguousMoveError

    state = _setup("D", [])
    with pytest.raises(AmbiguousMoveError, match="exit east"):
        GAME.normalize(state, 0, "forward 2")
    blocked = _setup("D", [(11, "south")])
    with pytest.raises(Exception, match="heading"):
        GAME.normalize(blocked, 0, "forward 2")


# ---- a lone truck never seals a warehouse (RM-M4: only two side by side block) ----------
LETTERS = "ABCDEF"


def _lone_truck_beside(letter: str, lane: str, heading: str) -> dict:
    """Four trucks: ann to move, bob parked on the road beside ``letter``, cy and dee away."""
    t = placed(4)
    state = t.state
    clear_road(state)
    house = state["data"]["houses"][letter]
    truck(state, 1, "road", house["space"], lane, heading)
    return state


def _lone_cases() -> list[tuple[str, str, str]]:
    return [(letter, lane, heading) for letter in LETTERS for lane in ("north", "south")
            for heading in ("east", "west")]


@pytest.mark.parametrize(("letter", "lane", "heading"), _lone_cases())
def test_RM_M4_a_lone_truck_never_locks_a_truck_in_a_warehouse(letter, lane, heading) -> None:
    """RM-M4: overtaking is allowed and only two trucks side by side block, so a truck in
    a warehouse can always leave, east and west, past one truck parked beside it."""
    state = _lone_truck_beside(letter, lane, heading)
    truck(state, 0, letter)
    options = forward_options(state, 0)
    house = state["data"]["houses"][letter]
    for exit_heading in ("east", "west"):
        outward = house["space"] + (1 if exit_heading == "east" else -1)
        if not 0 <= outward < state["data"]["length"]:
            continue  # the road ends there (no warehouse on the sample board stands at an end)
        leaving = [m for m in options if f"exit {exit_heading}" in m and "into" not in m]
        assert leaving, f"ann is locked in {letter} heading {exit_heading} by bob at {lane}"
        trial = _copy(state)
        GAME.apply(trial, 0, leaving[-1])
        assert trial["trucks"][0]["where"] == "road"
        assert GAME.invariants(trial) == []


@pytest.mark.parametrize(("letter", "lane", "heading"), _lone_cases())
def test_RM_M4_a_lone_truck_never_locks_a_truck_out_of_a_warehouse(letter, lane, heading) -> None:
    """RM-M4: a truck coming from either side can always drive into a warehouse past one
    truck parked beside it, and back into it from the space beside it."""
    state = _lone_truck_beside(letter, lane, heading)
    house = state["data"]["houses"][letter]
    for approach in ("east", "west"):
        start = house["space"] - 2 if approach == "east" else house["space"] + 2
        if not 0 <= start < state["data"]["length"]:
            continue
        right = "south" if approach == "east" else "north"
        truck(state, 0, "road", start, right, approach)
        into = [m for m in forward_options(state, 0) if m.endswith(f"into {letter}")]
        assert into, f"ann heading {approach} cannot enter {letter} past bob at {lane}"
        trial = _copy(state)
        GAME.apply(trial, 0, into[0])
        assert trial["trucks"][0]["where"] == letter
    # Backing in from the road space beside the warehouse, in whichever lane is free.
    free = "south" if lane == "north" else "north"
    truck(state, 0, "road", house["space"], free, heading)
    assert f"backward into {letter}" in backward_options(state, 0)


def test_RM_M4_two_trucks_side_by_side_still_block_a_warehouse() -> None:
    """RM-M4: with both lanes beside C taken, nobody gets in or out of C."""
    state = _lone_truck_beside("C", "north", "west")
    truck(state, 2, "road", 9, "south", "east")
    truck(state, 0, "C")
    assert forward_options(state, 0) == {}
    truck(state, 0, "road", 7, "south", "east")
    assert not [m for m in forward_options(state, 0) if "into C" in m]


def test_RM_M4_the_far_lane_serves_a_warehouse_only_past_a_truck() -> None:
    """RM-M4 (ruling): with the lane beside a warehouse free, trucks use that lane to turn
    in or out; the far lane is only the way round a truck parked there."""
    state = _setup("C", [])
    assert forward_options(state, 0)["forward 1 exit east left"] == ("road", 9, "north", "east")
    assert "forward 1 exit east" not in forward_options(state, 0)
    with pytest.raises(IllegalMoveError, match="warehouse C from the lane beside it"):
        GAME.apply(_copy(state), 0, "forward 1 exit east")


# ---- one forward move checked without listing them all --------------------------------------
def _all_positions(state: dict) -> list[tuple]:
    """Every place a truck can stand."""
    data = state["data"]
    road = [("road", x, lane, h) for x, lane, h in product(range(data["length"]),
                                                            ("north", "south"), HEADINGS)]
    return [("wh", k, "", "") for k in data["houses"]] + road


def test_RM_M1_to_M6_forward_path_is_the_listed_move() -> None:
    """``forward_path`` (used to apply a move) ends exactly where ``forward_options``
    (the legal list) says for that text, for every place a truck can stand, with other
    trucks around it, and for texts of paths that are illegal or out of range."""
    from pbem_games.road_master.board import forward_path, forward_text, raw_paths, set_position

    def forward_target(state: dict, seat: int, wanted: str, spaces: int) -> tuple | None:
        path = forward_path(state, seat, wanted, spaces)
        return None if path is None else path[-1]

    state = placed(3).state
    fmax = state["data"]["fmax"]
    checked = 0
    for blockers in ([], [("road", 5, "south", "east"), ("road", 5, "north", "west")],
                     [("road", 3, "north", "east")]):
        clear_road(state)
        for seat, pos in enumerate(blockers, start=1):
            set_position(state["trucks"][seat], pos)
        for pos in _all_positions(state):
            set_position(state["trucks"][0], pos)
            listed = forward_options(state, 0)
            texts = set(listed) | {forward_text(p) for n in range(1, fmax + 1)
                                   for p in raw_paths(state, 0, n)}
            for text in sorted(texts):
                spaces = int(text.split()[1])
                assert forward_target(state, 0, text, spaces) == listed.get(text), (pos, text)
                checked += 1
            assert forward_target(state, 0, f"forward {fmax + 1}", fmax + 1) is None
    assert checked > 1000


def test_RM_M1_to_M6_spelling_paths_are_the_raw_paths_of_that_text() -> None:
    """The forward move applied grows only the paths that spell it: the very paths of
    raw_paths with that text, in raw_paths' order (so the same first legal path wins, and
    the truck arrives with the same heading), for every text a place gives, from every
    place, and none for a text that no path spells."""
    from pbem_games.road_master.board import forward_text, raw_paths, set_position, spelling_paths

    state = placed(3).state
    fmax = state["data"]["fmax"]
    clear_road(state)
    set_position(state["trucks"][1], ("road", 5, "south", "east"))
    checked = 0
    for pos in _all_positions(state):
        set_position(state["trucks"][0], pos)
        for spaces in range(1, fmax + 1):
            paths = raw_paths(state, 0, spaces)
            for text in sorted({forward_text(p) for p in paths}):
                expected = [p for p in paths if forward_text(p) == text]
                assert list(spelling_paths(state, 0, text, spaces)) == expected, (pos, text)
                checked += 1
            for text in (f"forward {spaces} into Z", f"forward {spaces} exit north",
                         f"forward {spaces} into A exit", f"forward {spaces} left left"):
                assert list(spelling_paths(state, 0, text, spaces)) == []
    assert checked > 1000


# ---- a forward move may pass through a warehouse (RM-M1, revised ruling) -----------------
def test_rm_m1_a_forward_move_passes_through_a_warehouse_and_turns_round() -> None:
    """RM-M1: 「道路上または倉庫内で1〜4スペース移動させます」: entering a warehouse does not end
    the move. From space 7 heading east: 2 spaces to C's road space, 1 into C, 1 out
    heading west: one forward action turns the truck round."""
    state = _setup((7, "south", "east"), [])
    options = forward_options(state, 0)
    assert options["forward 4 into C exit west"] == ("road", 9, "north", "west")
    assert options["forward 4 into C exit east left"] == ("road", 9, "north", "east")
    trial = _copy(state)
    GAME.apply(trial, 0, "forward 4 into C exit west")
    moved = trial["trucks"][0]
    assert (moved["where"], moved["x"], moved["lane"], moved["heading"]) == ("road", 9, "north", "west")
    assert trial["turn"]["actions"] == ["forward"]  # one action, not two
    assert GAME.invariants(trial) == []


def test_rm_m1_passing_through_counts_every_step_and_goes_on() -> None:
    """RM-M1: each step of a pass-through is counted: from B's road space heading east,
    into B (1), out heading west (2), then two more road spaces (3, 4)."""
    state = _setup((5, "south", "east"), [])
    options = forward_options(state, 0)
    assert options["forward 4 into B exit west"] == ("road", 3, "north", "west")
    assert "forward 3 into B exit west" in options  # out and one space on
    assert "forward 2 into B exit west left" in options  # just out, beside B
    # From a warehouse: out, along, into the next one, and out again, in 4 spaces.
    start = _setup("C", [])
    assert forward_options(start, 0)["forward 4 exit east into D"] == ("wh", "D", "", "")
    assert "forward 3 exit west into B" not in forward_options(start, 0)  # 4 spaces away


def test_rm_m1_a_truck_does_not_drive_straight_back_into_the_warehouse_it_left() -> None:
    """RM-M1 (ruling): out and straight back in would be standing still: not a move."""
    state = _setup("C", [])
    assert not [m for m in forward_options(state, 0) if m.endswith("into C")]
    with pytest.raises(IllegalMoveError, match="does not lead there"):
        GAME.apply(_copy(state), 0, "forward 2 exit east into C")


def test_rm_m1_the_pass_through_notation_round_trips() -> None:
    """Every listed forward move, pass-throughs included, parses back to itself, and the
    move applied leaves the truck where the list says."""
    for mover in ((7, "south", "east"), (16, "north", "west"), "C", "D", (5, "south", "east")):
        state = _setup(mover, [(3, "south")])
        for move, pos in forward_options(state, 0).items():
            assert GAME.normalize(state, 0, move) == move
            trial = _copy(state)
            GAME.apply(trial, 0, move)
            truck_ = trial["trucks"][0]
            got = ("wh", truck_["where"], "", "") if truck_["where"] != "road" else \
                ("road", truck_["x"], truck_["lane"], truck_["heading"])
            assert got == pos, move


def test_rm_m1_pass_through_notation_is_checked() -> None:
    """A warehouse named mid-move needs the heading it is left with; typed words in any
    friendly form reach the canonical text."""
    from pbem.game import InvalidMoveError

    state = _setup((7, "south", "east"), [])
    assert GAME.normalize(state, 0, "f4 via c west") == "forward 4 into C exit west"
    assert GAME.normalize(state, 0, "forward 4 in c exit e l") == "forward 4 into C exit east left"
    with pytest.raises(InvalidMoveError, match="leaves C with"):
        GAME.normalize(state, 0, "forward 4 into C into D")
    with pytest.raises(InvalidMoveError, match="before the heading"):
        GAME.normalize(state, 0, "forward 4 exit east exit west")


# ---- RM-M5 holds for backward moves too (revised ruling) ---------------------------------
def test_rm_m5_a_backward_move_cannot_end_a_turn_in_the_left_lane_for_nothing() -> None:
    """RM-M5 / RM-M2: 「追い越し、倉庫に入る、または倉庫から出るときであれば...左車線でターン
    を終えることができます」 holds for every move. Out of B heading west into the left lane
    (leaving: allowed), then backward to space 6: no truck to overtake and no warehouse
    beside it, so it is refused."""
    state = _setup("B", [])
    GAME.apply(state, 0, "forward 1 exit west left")
    assert (state["trucks"][0]["x"], state["trucks"][0]["lane"]) == (5, "south")
    assert "backward" not in GAME.legal_moves(state, 0)
    with pytest.raises(IllegalMoveError, match="keep to the right lane at space 6"):
        GAME.apply(_copy(state), 0, "backward")


def test_rm_m5_a_backward_move_may_end_in_the_left_lane_overtaking_or_at_a_warehouse() -> None:
    """RM-M5: in the left lane, backing up is fine beside a truck in the right lane (mid-
    overtake) or beside a warehouse on that side; in the right lane it always is."""
    beside_truck = _setup((5, "north", "east"), [(4, "south")])
    assert backward_options(beside_truck, 0)["backward"] == ("road", 4, "north", "east")
    beside_house = _setup((10, "north", "east"), [])  # C stands north of space 9
    assert backward_options(beside_house, 0)["backward"] == ("road", 9, "north", "east")
    nothing = _setup((12, "north", "east"), [])
    assert "backward" not in backward_options(nothing, 0)
    right = _setup((12, "south", "east"), [])
    assert "backward" in backward_options(right, 0)
