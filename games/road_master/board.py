"""The highway: where a truck may go with one forward or backward action.

The road is a line of spaces 0..length-1 (west to east, ends not joined), each with a
north and a south lane; warehouses stand beside one road space, on one side. A truck on
the road has a lane and a heading; its right lane is south when heading east and north
when heading west. A truck in a warehouse has no lane: it leaves by a forward move,
choosing its heading then, or backs out onto the road keeping the heading it came in with.

Reading of the rules used here (RM-M1..M7 and the rulings):
- Each space of a forward move advances one road space, optionally changing lane
  (diagonally); entering a warehouse from the lane beside it, or leaving onto that lane,
  costs one space. A move may pass through a warehouse: enter, leave with either heading
  (so a truck turns round only in a warehouse) and go on, each step counted; it never
  goes straight back into the warehouse it has just left (that would be standing still).
- Every lane-space the truck enters must be free; so two trucks side by side block the
  road, and nothing jumps over a truck.
- A lone truck never seals a warehouse (only two side by side block): while another
  truck stands in the lane beside a warehouse, the far lane of that road space serves
  the warehouse instead (entering from it, leaving onto it, backing in from it). With
  the lane beside it free, only that lane serves the warehouse.
- The truck may be in its left lane only while overtaking (a truck beside it or just
  ahead in the right lane), or beside a warehouse it is entering or has just left. Two
  trucks in a row can only be passed one at a time: consecutive left-lane spaces must be
  about the same overtaken truck (so the mover is back in its lane between them).
- Backward is one space against the heading in the same lane (never off the road), or
  from a warehouse's road space (in the lane beside it) back into the warehouse, or out
  of a warehouse onto its road space, in the right lane of the heading it came in with.
  A backward move, like a forward one, may end in the left lane only mid-overtake or
  beside a warehouse (RM-M5 holds for every move).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pbem.game import derived

State = dict[str, Any]
# A position: ("road", x, lane, heading) or ("wh", letter, "", "").
Pos = tuple[str, Any, str, str]
HEADINGS = ("east", "west")


def delta(heading: str) -> int:
    return 1 if heading == "east" else -1


def right_lane(heading: str) -> str:
    return "south" if heading == "east" else "north"


def left_lane(heading: str) -> str:
    return "north" if heading == "east" else "south"


def position(truck: dict[str, Any]) -> Pos:
    if truck["where"] == "road":
        return ("road", truck["x"], truck["lane"], truck["heading"])
    return ("wh", truck["where"], "", "")


def set_position(truck: dict[str, Any], pos: Pos, heading: str = "") -> None:
    """Put the truck at ``pos``; in a warehouse it keeps ``heading`` (the one it came in
    with, for backing out; "" when placed there at the start)."""
    if pos[0] == "road":
        truck.update(where="road", x=pos[1], lane=pos[2], heading=pos[3])
    else:
        truck.update(where=pos[1], x=-1, lane="", heading=heading)


def arrive(truck: dict[str, Any], path: list[Pos]) -> None:
    """Put the truck at the end of a forward path (start first)."""
    end = path[-1]
    set_position(truck, end, path[-2][3] if end[0] == "wh" else "")


def describe(pos: Pos) -> str:
    """A short human place name: 'warehouse C' or 'space 7, south lane, heading east'."""
    if pos[0] == "wh":
        return f"warehouse {pos[1]}"
    return f"space {pos[1]}, {pos[2]} lane, heading {pos[3]}"


def occupancy(state: State, mover: int) -> dict[tuple[int, str], int]:
    """Road lane-spaces held by trucks other than ``mover``."""
    taken: dict[tuple[int, str], int] = {}
    for seat, truck in enumerate(state["trucks"]):
        if seat != mover and truck["where"] == "road":
            taken[(truck["x"], truck["lane"])] = seat
    return taken


def house_at(state: State, x: int, lane: str) -> str:
    """The warehouse beside lane-space (x, lane), or ''."""
    return _houses_by_place(state["data"]).get((x, lane), "")


def _houses_by_place(data: dict[str, Any]) -> dict[tuple[int, str], str]:
    """(space, side) -> warehouse letter: the path search asks thousands of times a turn."""
    def build() -> dict[tuple[int, str], str]:
        index: dict[tuple[int, str], str] = {}
        for letter, house in data["houses"].items():
            index.setdefault((house["space"], house["side"]), str(letter))
        return index
    return derived(data, "houses_by_place", build)


def other_lane(lane: str) -> str:
    return "north" if lane == "south" else "south"


def house_across(state: State, x: int, lane: str) -> str:
    """The warehouse beside the *other* lane of road space x, or ''."""
    return house_at(state, x, other_lane(lane))


def serves(state: State, taken: dict[tuple[int, str], int], x: int, lane: str) -> str:
    """The warehouse lane-space (x, lane) gives onto: the one beside it, or the one
    across the road while a truck stands in the lane beside that one; or ''."""
    letter = house_at(state, x, lane)
    if letter:
        return letter
    across = house_across(state, x, lane)
    return across if across and (x, other_lane(lane)) in taken else ""


def _steps(state: State, pos: Pos, left_house: str) -> list[Pos]:
    """Every single space a truck at ``pos`` could move to, ignoring other trucks (so
    the far lane of a warehouse's space is offered too; path_problem sorts it out), but
    not back into ``left_house``, the warehouse it has just left. The road never
    changes: worked out once per place (the caller must not change the list)."""
    known: dict[tuple[Pos, str], list[Pos]] = derived(state["data"], "steps", dict)
    found = known.get((pos, left_house))
    if found is None:
        found = known[(pos, left_house)] = _work_out_steps(state, pos, left_house)
    return found


def _work_out_steps(state: State, pos: Pos, left_house: str) -> list[Pos]:
    length = state["data"]["length"]
    if pos[0] == "wh":
        house = state["data"]["houses"][pos[1]]
        return [("road", house["space"], lane, h)
                for lane in (house["side"], other_lane(house["side"])) for h in HEADINGS]
    _, x, lane, heading = pos
    out: list[Pos] = []
    nxt = x + delta(heading)
    if 0 <= nxt < length:
        for new_lane in (lane, other_lane(lane)):
            out.append(("road", nxt, new_lane, heading))
    for letter in (house_at(state, x, lane), house_across(state, x, lane)):
        if letter and letter != left_house:
            out.append(("wh", letter, "", ""))
    return out


def _left_refs(
    state: State, taken: dict[tuple[int, str], int], path: list[Pos], i: int
) -> set[str]:
    """Why path[i] may be in the left lane: overtaken trucks ('t<seat>') or 'wh'."""
    _, x, lane, heading = path[i]
    refs: set[str] = set()
    right = right_lane(heading)
    # The truck being passed: the one alongside, else the one just ahead (pulling out).
    for spot in (x, x + delta(heading)):
        if (spot, right) in taken:
            refs.add(f"t{taken[(spot, right)]}")
            break
    before = path[i - 1] if i > 0 else None
    after = path[i + 1] if i + 1 < len(path) else None
    turning = bool((after and after[0] == "wh") or (before and before[0] == "wh"))
    if house_at(state, x, lane) and (turning or i == len(path) - 1):
        refs.add("wh")
    elif turning:
        refs.add("wh")  # the far lane, round a truck parked beside the warehouse
    return refs


def path_problem(state: State, mover: int, path: list[Pos],
                 taken: dict[tuple[int, str], int] | None = None) -> str:
    """'' if the path (start first) is a legal forward move, else why not (``taken``:
    ``occupancy(state, mover)``, if the caller has it)."""
    return _first_problem(state, mover, path, taken)[1]


def _first_problem(state: State, mover: int, path: list[Pos],
                   taken: dict[tuple[int, str], int] | None = None) -> tuple[int, str]:
    """(index of the first bad space, why) or (len(path), '') for a legal path."""
    if taken is None:
        taken = occupancy(state, mover)
    prev_refs: set[str] | None = None
    for i, pos in enumerate(path):
        if pos[0] != "road":
            prev_refs = None
            continue
        problem = _access_problem(state, taken, path, i)
        if problem:
            return i, problem
        if i > 0 and (pos[1], pos[2]) in taken:
            who = state["seats"][taken[(pos[1], pos[2])]]
            return i, f"space {pos[1]} ({pos[2]} lane) is taken by {who}'s truck"
        if pos[2] != left_lane(pos[3]):
            prev_refs = None
            continue
        refs = _left_refs(state, taken, path, i)
        if i > 0 and not refs:
            return i, f"the truck must keep to the right lane at space {pos[1]}"
        if prev_refs and refs and "wh" not in prev_refs | refs and not prev_refs & refs:
            return i, "the truck must get back into its lane between two trucks it passes"
        prev_refs = refs
    return len(path), ""


def _access_problem(state: State, taken: dict[tuple[int, str], int], path: list[Pos], i: int) -> str:
    """Why the road space path[i] cannot be where the truck turns into or out of the
    warehouse next to it in the path ('' if it can, or if no warehouse is involved)."""
    _, x, lane, _ = path[i]
    for j in (i - 1, i + 1):
        if 0 <= j < len(path) and path[j][0] == "wh":
            letter = path[j][1]
            if serves(state, taken, x, lane) != letter:
                return (f"the truck turns into or out of warehouse {letter} from the lane "
                        "beside it (the far lane only round a truck standing there)")
    return ""


def raw_paths(state: State, seat: int, spaces: int) -> list[list[Pos]]:
    """Every path of exactly ``spaces`` spaces from the truck, other trucks ignored (the
    caller must not change them: they are shared)."""
    start = position(state["trucks"][seat])
    memo: dict[tuple[Pos, int], list[list[Pos]]] = derived(state["data"], "paths_from", dict)
    found = memo.get((start, spaces))
    if found is None:  # the road never changes: nor do the paths from a place
        found = memo[(start, spaces)] = _grow_paths(state, start, spaces)
    return found


def _grow_paths(state: State, start: Pos, spaces: int) -> list[list[Pos]]:
    frontier: list[list[Pos]] = [[start]]
    for _ in range(spaces):
        grown: list[list[Pos]] = []
        for path in frontier:
            left = path[-2][1] if len(path) > 1 and path[-2][0] == "wh" else ""
            grown.extend(path + [nxt] for nxt in _steps(state, path[-1], left))
        frontier = grown
    return frontier


def forward_options(state: State, seat: int) -> dict[str, Pos]:
    """Canonical forward moves of ``seat`` -> where each leaves the truck."""
    found: dict[str, Pos] = {}
    taken = occupancy(state, seat)
    for spaces in range(1, state["data"]["fmax"] + 1):
        for path in raw_paths(state, seat, spaces):
            if not path_problem(state, seat, path, taken):
                found.setdefault(forward_text(path), path[-1])
    return dict(sorted(found.items(), key=lambda kv: _order(kv[0])))


def forward_path(state: State, seat: int, wanted: str, spaces: int) -> list[Pos] | None:
    """The path the forward move ``wanted`` takes, or None if it is not possible; found
    without listing every other move (only paths that spell it are grown; the first
    legal one in forward_options' order wins, as there)."""
    if not 1 <= spaces <= state["data"]["fmax"]:
        return None
    taken = occupancy(state, seat)
    for path in spelling_paths(state, seat, wanted, spaces):
        if not path_problem(state, seat, path, taken):
            return path
    return None


def spelling_paths(state: State, seat: int, wanted: str, spaces: int) -> Iterator[list[Pos]]:
    """The paths of raw_paths whose forward_text is ``wanted``, in raw_paths' order, one
    at a time. Each warehouse a path meets adds words to its text in order ('exit H' on
    leaving one, 'into X' on entering one), so a part-grown path whose words so far do
    not begin ``wanted``'s is dropped with everything it would grow into."""
    words = wanted.split()[2:]
    if words[-1:] == ["left"]:
        words.pop()
    # ("exit", heading) / ("into", letter); a word left over spells no path (checked last)
    pairs = list(zip(words[0::2], words[1::2], strict=False))
    return _grow_spelling(state, position(state["trucks"][seat]), spaces, pairs, wanted)


def _grow_spelling(state: State, start: Pos, spaces: int, pairs: list[tuple[str, str]],
                   wanted: str) -> Iterator[list[Pos]]:
    """spelling_paths' search, depth first: ``path`` is the path grown so far, ``used[i]``
    how many of ``pairs`` path[:i + 1] has said, ``branches[i]`` the steps from path[i]
    not tried yet (tried in _steps' order, so paths come in raw_paths' order)."""
    path, used, branches = [start], [0], [iter(_steps(state, start, ""))]
    while branches:
        nxt = next(branches[-1], None)
        if nxt is None:  # every step from path[-1] tried: back up one
            path.pop()
            used.pop()
            branches.pop()
            continue
        here, said = path[-1], used[-1]
        if here[0] == "wh":  # leaving a warehouse: the heading chosen is said
            pair: tuple[str, str] | None = ("exit", nxt[3])
        else:
            pair = ("into", str(nxt[1])) if nxt[0] == "wh" else None
        if pair is not None:
            if said == len(pairs) or pairs[said] != pair:
                continue
            said += 1
        if len(path) == spaces:  # nxt ends the path
            full = [*path, nxt]
            if said == len(pairs) and forward_text(full) == wanted:
                yield full
            continue
        path.append(nxt)
        used.append(said)
        branches.append(iter(_steps(state, nxt, here[1] if here[0] == "wh" else "")))


def why_not_forward(state: State, seat: int, wanted: str, spaces: int) -> str:
    """A sentence saying why the forward move ``wanted`` is impossible."""
    if spaces > state["data"]["fmax"]:
        return f"a forward move is 1 to {state['data']['fmax']} spaces"
    paths = [p for p in raw_paths(state, seat, spaces) if forward_text(p) == wanted]
    if not paths:
        if position(state["trucks"][seat])[0] == "wh" and wanted.split()[2:3] != ["exit"]:
            return "a truck leaving a warehouse must say its heading: exit east or exit west"
        return f"the road does not lead there in {spaces} space(s)"
    # The path that got furthest before going wrong says the most useful thing.
    problems = [_first_problem(state, seat, p) for p in paths]
    return max(problems, key=lambda p: p[0])[1] or "that move is not possible"


def _order(move: str) -> tuple[int, str]:
    return (int(move.split()[1]), move)


def forward_text(path: list[Pos]) -> str:
    """The canonical forward move along ``path`` (start first): its warehouses in order,
    each 'into X' and, unless the move ends there, 'exit HEADING' (the heading chosen on
    leaving); 'left' if it ends in the left lane."""
    end = path[-1]
    parts = ["forward", str(len(path) - 1)]
    for i, pos in enumerate(path):
        if pos[0] != "wh":
            continue
        if i:
            parts += ["into", str(pos[1])]
        if i + 1 < len(path):
            parts += ["exit", path[i + 1][3]]
    if end[0] == "road" and end[2] == left_lane(end[3]):
        parts.append("left")
    return " ".join(parts)


def backward_options(state: State, seat: int) -> dict[str, Pos]:
    """Canonical backward moves of ``seat`` -> where each leaves the truck."""
    truck = state["trucks"][seat]
    taken = occupancy(state, seat)
    pos = position(truck)
    out: dict[str, Pos] = {}
    if pos[0] == "wh":
        out_of = _backing_out(state, truck)
        if out_of is not None and (out_of[1], out_of[2]) not in taken:
            out["backward"] = out_of
        return out
    _, x, lane, heading = pos
    back = x - delta(heading)
    if 0 <= back < state["data"]["length"] and (back, lane) not in taken:
        target: Pos = ("road", back, lane, heading)
        if lane != left_lane(heading) or _left_refs(state, taken, [pos, target], 1):
            out["backward"] = target
    letter = serves(state, taken, x, lane)
    if letter:
        out[f"backward into {letter}"] = ("wh", letter, "", "")
    return out


def _backing_out(state: State, truck: dict[str, Any]) -> Pos | None:
    """Where a truck in a warehouse backs out to: its road space, in the right lane of
    the heading it came in with; None for a truck placed there at the start (it has no
    heading yet, and leaves by a forward move)."""
    heading = truck["heading"]
    if not heading:
        return None
    space = state["data"]["houses"][truck["where"]]["space"]
    return ("road", space, right_lane(heading), heading)


def why_no_backward(state: State, seat: int, into: str) -> str:
    """A sentence saying why the backward move asked for is impossible."""
    truck = state["trucks"][seat]
    pos = position(truck)
    taken = occupancy(state, seat)
    if pos[0] != "road":
        if into:
            return "the truck is already in a warehouse"
        out_of = _backing_out(state, truck)
        if out_of is None:
            return ("a truck placed in a warehouse at the start has no heading yet: it "
                    "leaves by a forward move")
        who = state["seats"][taken[(out_of[1], out_of[2])]]
        return (f"backing out of warehouse {pos[1]} heading {out_of[3]} needs space "
                f"{out_of[1]} ({out_of[2]} lane), and {who}'s truck is there")
    if into:
        return f"the truck is not in the lane beside warehouse {into}"
    back = pos[1] - delta(pos[3])
    if not 0 <= back < state["data"]["length"]:
        return "the road ends behind the truck"
    if (back, pos[2]) in taken:
        return f"space {back} ({pos[2]} lane) behind the truck is taken"
    return (f"the truck must keep to the right lane at space {back}: a move may end in "
            "the left lane only mid-overtake or beside a warehouse")
