"""Setting ``queue_order``: ``shared`` (one seeded order) or ``per-annotator`` (each person's
own seeded shuffle); calibration items first and overlap priority either way."""

from __future__ import annotations

import hashlib
import random

import pytest

from core.annotation.base import team_queue
from core.annotation.pairwise import verdict_queue
from core.annotation.reviews import review_queue
from core.annotation.tasks import task_items
from core.errors import InputError
from core.store.database import open_db
from core.store.settings import all_settings, update_setting


def _by_hash(items, prefix):
    """The reference shuffle, written out: sort by sha256 of ``prefix|key``."""
    return sorted(items, key=lambda k: hashlib.sha256(f"{prefix}|{k}".encode()).hexdigest())


def test_team_queue_personal_order_is_each_persons_own_seeded_shuffle():
    items = [f"i{n:02d}" for n in range(40)]
    shared_a = team_queue(items, {}, "alice", k=1, seed=3)
    shared_b = team_queue(items, {}, "bob", k=1, seed=3)
    assert shared_a == shared_b == _by_hash(items, "3")
    own_a = team_queue(items, {}, "alice", k=1, seed=3, personal=True)
    own_b = team_queue(items, {}, "bob", k=1, seed=3, personal=True)
    assert own_a == _by_hash(items, "3|alice") and own_b == _by_hash(items, "3|bob")
    assert own_a != own_b and sorted(own_a) == sorted(own_b) == items
    assert team_queue(items, {}, "alice", k=1, seed=3, personal=True) == own_a  # reproducible
    calib = team_queue(items, {}, "alice", k=1, seed=3, calibration=5, personal=True)
    first = set(_by_hash(items, "3")[:5])  # the shared order's first five, for everyone
    assert set(calib[:5]) == first
    assert calib[:5] == [i for i in own_a if i in first]  # in alice's own order
    started = team_queue(items, {"i07": {"carol"}}, "alice", k=2, seed=3, personal=True)
    assert started[0] == "i07"  # items started by others still come first


def test_queue_order_setting_reaches_every_queue(fixture_db):
    db_path, _ = fixture_db
    db = open_db(db_path)
    try:
        assert all_settings(db)["queue_order"] == "shared"
        with pytest.raises(InputError, match="one of shared, per-annotator"):
            update_setting(db, "queue_order", "random")
        before = {n: verdict_queue(db, n) for n in ("alice", "bob")}
        assert before["alice"] == before["bob"]
        qs = task_items(db, "review")
        shared_reviews = review_queue(db, "alice", qs)
        update_setting(db, "queue_order", "per-annotator")
        after = {n: verdict_queue(db, n) for n in ("alice", "bob")}
        assert after["alice"] != after["bob"]
        assert sorted(after["alice"]) == sorted(before["alice"])
        assert review_queue(db, "alice", qs) != review_queue(db, "bob", qs)
        assert sorted(review_queue(db, "alice", qs)) == sorted(shared_reviews)
    finally:
        db.conn.close()


def _reference_queue(
    items, who, annotator, *, k, seed, calibration=0, skipped=None, last=(), personal=False
):
    """team_queue as it was written before issue 37: every open item sorted by its full key."""
    skips = skipped or {}
    by_str = {str(i): i for i in items}
    order = sorted(by_str, key=lambda s: hashlib.sha256(f"{seed}|{s}".encode()).hexdigest())
    order = [by_str[s] for s in order]
    calib = set(order[:calibration])
    late = set(last)
    if personal:
        mine = sorted(
            by_str, key=lambda s: hashlib.sha256(f"{seed}|{annotator}|{s}".encode()).hexdigest()
        )
        order = [by_str[s] for s in mine]
    rank = {i: n for n, i in enumerate(order)}
    todo = [
        i
        for i in order
        if annotator not in who.get(i, ()) and (i in calib or len(who.get(i, ())) < k)
    ]
    return sorted(
        todo,
        key=lambda i: (
            annotator in skips.get(i, ()),
            i not in calib,
            not who.get(i),
            i in late,
            -len(who.get(i, ())),
            rank[i],
        ),
    )


def test_team_queue_equals_the_full_sort_of_every_open_item():
    """The queue built from the remembered order of unmarked items and the sorted marked ones
    (issue 37) is the full sort, on random marks, skips, calibration, k, last and orders."""
    rng = random.Random(7)
    people = ["alice", "bob", "carol", "dave", "erin"]
    for case in range(300):
        n = rng.randint(0, 40)
        items = [f"i{j:02d}" for j in range(n)]
        who = {}
        skipped = {}
        for i in items:
            if rng.random() < 0.4:
                who[i] = set(rng.sample(people, rng.randint(0, 3)))  # empty sets too
            if rng.random() < 0.25:
                skipped[i] = set(rng.sample(people, rng.randint(1, 2)))
        who["not-an-item"] = {"bob"}  # marks on keys outside items are ignored
        skipped["gone"] = {"alice"}
        args = {
            "k": rng.randint(0, 3),
            "seed": rng.randint(0, 5),
            "calibration": rng.randint(0, 6),
            "skipped": skipped if rng.random() < 0.8 else None,
            "last": set(rng.sample(items, min(len(items), rng.randint(0, 5)))),
            "personal": rng.random() < 0.4,
        }
        annotator = rng.choice(people)
        got = team_queue(items, who, annotator, **args)
        assert got == _reference_queue(items, who, annotator, **args), (case, args)
