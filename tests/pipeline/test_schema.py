"""The experiment file as one frozen pydantic model: one-line errors naming the key, the stored
config read back into the same model, the report's ranking settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from core.answering.systems import System
from core.errors import ConfigError
from core.judging.specs import Judge
from core.pipeline.config import load_experiment, parse_config
from core.pipeline.schema import Experiment
from core.stats.ranking_settings import RankingSettings

ROOT = Path(__file__).resolve().parents[2]

RAW: dict[str, Any] = {
    "seed": 3,
    "systems": [
        {"name": "a", "kind": "rag", "model": "offline:extractive", "tokens": 500},
        {"name": "b", "kind": "none", "model": "offline:extractive"},
    ],
    "judges": [{"name": "sbs", "kind": "side_by_side", "model": "offline:overlap"}],
}


def error(raw: object, path: str = "e.toml") -> str:
    with pytest.raises(ConfigError) as caught:
        parse_config(raw, path)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_wrong_type_is_one_line_naming_the_key() -> None:
    assert error({**RAW, "seed": "7"}) == "e.toml: key 'seed': expected a whole number, found '7'"
    systems = [{**RAW["systems"][0], "tokens": 4.5}, RAW["systems"][1]]
    assert error({**RAW, "systems": systems}) == (
        "e.toml: key 'systems[0].tokens': expected a whole number, found 4.5"
    )
    assert error({**RAW, "report": {"ties": 1}}).startswith("e.toml: key 'report.ties'")


def test_unknown_key_is_one_line_with_the_closest_known_key() -> None:
    assert error({**RAW, "sistems": []}) == (
        "e.toml: unknown key 'sistems'; did you mean 'systems'?"
    )
    # the model's own attribute names are not keys of the file
    assert error({**RAW, "system_tables": []}).startswith("e.toml: unknown key 'system_tables'")
    message = error({**RAW, "tournament": {"bugdet": 0.5}})
    assert message == "e.toml: unknown key 'tournament.bugdet'; did you mean 'budget'?"


def test_cross_references_are_checked_by_the_model() -> None:
    twice = {**RAW, "systems": [RAW["systems"][0], RAW["systems"][0]]}
    assert error(twice) == "experiment 'e': duplicate system name(s) ['a']"
    bad = {**RAW, "tournament": {"judges": ["nope"]}}
    assert "[tournament] judge 'nope' is not a pairwise judge" in error(bad)


def test_one_frozen_model_from_file_to_runner() -> None:
    exp = parse_config(RAW, "dir/e.toml")
    assert isinstance(exp, Experiment)
    assert (exp.name, exp.path, exp.seed, exp.c) == ("e", "dir/e.toml", 3, 200)
    assert all(isinstance(s, System) for s in exp.systems)
    assert [s.name for s in exp.systems] == ["a", "b"] and exp.systems[0].tokens == 500
    assert all(isinstance(j, Judge) for j in exp.judges)
    assert [j.name for j in exp.pairwise_judges] == ["sbs"] and exp.absolute_judges == []
    with pytest.raises(ValidationError):
        exp.seed = 4  # the point: the model is frozen
    with pytest.raises(ValidationError):
        exp.tournament.budget = 0.5  # nested tables too


def test_stored_config_reads_back_into_the_same_model() -> None:
    exp = parse_config(RAW, "e.toml")
    stored = exp.config()
    assert stored["name"] == "e" and "report" not in stored  # only what the file set
    again = parse_config(stored, "elsewhere.toml")
    assert again.model_dump() == exp.model_dump()
    assert again.systems == exp.systems and again.judges == exp.judges


def test_report_ranking_settings_have_one_set_of_defaults() -> None:
    exp = parse_config(RAW, "e.toml")
    assert exp.report.ranking(exp.seed) == RankingSettings(n_boot=500, seed=3)
    assert exp.report.prior_alpha == 0.01 and exp.report.level == 0.95
    custom = parse_config({**RAW, "report": {"bootstrap": 50, "ties": "drop", "level": 0.9}}, "e")
    assert custom.report.ranking(1) == RankingSettings("drop", 50, 1, 0.9)


def test_every_shipped_experiment_loads_and_round_trips() -> None:
    for path in sorted((ROOT / "experiments").glob("*.toml")):
        exp = load_experiment(path)
        assert parse_config(exp.config(), str(path)).model_dump() == exp.model_dump(), path
