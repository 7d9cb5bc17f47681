"""Action tokens: may these actions be played with different tokens, one face each?

A player has seven two-faced tokens (data); a turn uses at most ``per_turn`` of them, each
for one action shown on one of its faces (RM-A1). Whether a list of actions fits is a
bipartite matching of actions to tokens, small enough for a plain augmenting search.
"""

from __future__ import annotations

from collections.abc import Sequence


def assignment(actions: Sequence[str], tokens: Sequence[Sequence[str]]) -> list[int] | None:
    """One distinct token index per action, or None if no such assignment exists."""
    owner: dict[int, int] = {}  # token index -> action index

    def augment(action: int, seen: set[int]) -> bool:
        for t, faces in enumerate(tokens):
            if actions[action] in faces and t not in seen:
                seen.add(t)
                if t not in owner or augment(owner[t], seen):
                    owner[t] = action
                    return True
        return False

    if not all(augment(a, set()) for a in range(len(actions))):
        return None
    by_action = {a: t for t, a in owner.items()}
    return [by_action[a] for a in range(len(actions))]


def fits(actions: Sequence[str], tokens: Sequence[Sequence[str]], per_turn: int) -> bool:
    """True if the actions fit in one turn: few enough, each on its own token."""
    return len(actions) <= per_turn and assignment(actions, tokens) is not None


def faces_text(tokens: Sequence[Sequence[str]]) -> str:
    """'forward/backward, forward/load, ...': each token's faces."""
    return ", ".join("/".join(faces) for faces in tokens)


def limits_text(tokens: Sequence[Sequence[str]]) -> str:
    """'forward 3, backward 3, ...': how many tokens show each action, the most of it a
    turn can hold."""
    counts: dict[str, int] = {}
    for faces in tokens:
        for face in faces:
            counts[face] = counts.get(face, 0) + 1
    return ", ".join(f"{action} {n}" for action, n in counts.items())
