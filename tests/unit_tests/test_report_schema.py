"""Report v1: the JSON export, the JSON Schema shipped in the package, and their agreement.

``jsonschema`` is not a dependency, so :func:`violations` checks the subset of JSON Schema that
pydantic generates ($ref, anyOf, const, enum, type, properties, required,
additionalProperties, items, minimum, maximum).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter

from deep_research.engines import OfflineEngine
from deep_research.schemas import render, report_schema, shipped_report_schema
from deep_research.state import Report
from tests.unit_tests.test_verification import Recording, make_state, run_verification

_TYPES: dict[str, Any] = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
}


def _type_ok(instance: Any, kind: str) -> bool:
    if kind == "integer":
        return isinstance(instance, int) and not isinstance(instance, bool)
    if kind == "number":
        return isinstance(instance, int | float) and not isinstance(instance, bool)
    return isinstance(instance, _TYPES[kind])


def _scalar_violations(instance: Any, schema: dict[str, Any], path: str) -> list[str]:
    found: list[str] = []
    if "const" in schema and instance != schema["const"]:
        found.append(f"{path}: is not {schema['const']!r}")
    if "enum" in schema and instance not in schema["enum"]:
        found.append(f"{path}: {instance!r} is not one of {schema['enum']}")
    if isinstance(instance, int | float) and not isinstance(instance, bool):
        if "minimum" in schema and instance < schema["minimum"]:
            found.append(f"{path}: below {schema['minimum']}")
        if "maximum" in schema and instance > schema["maximum"]:
            found.append(f"{path}: above {schema['maximum']}")
    return found


def _object_violations(
    instance: dict[str, Any], schema: dict[str, Any], root: dict[str, Any], path: str
) -> list[str]:
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties")
    found = [f"{path}: missing {key}" for key in schema.get("required", []) if key not in instance]
    for key, value in instance.items():
        if key in properties:
            found += violations(value, properties[key], root, f"{path}.{key}")
        elif extra is False:
            found.append(f"{path}: unexpected {key}")
        elif isinstance(extra, dict):
            found += violations(value, extra, root, f"{path}.{key}")
    return found


def violations(
    instance: Any, schema: dict[str, Any], root: dict[str, Any], path: str = "$"
) -> list[str]:
    """What in ``instance`` breaks ``schema`` (empty when it conforms)."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return violations(instance, root["$defs"][name], root, path)
    if "anyOf" in schema:
        if all(violations(instance, option, root, path) for option in schema["anyOf"]):
            return [f"{path}: matches none of anyOf"]
        return []
    kind = schema.get("type")
    if kind and not _type_ok(instance, kind):
        return [f"{path}: is not of type {kind}"]
    found = _scalar_violations(instance, schema, path)
    if isinstance(instance, dict):
        found += _object_violations(instance, schema, root, path)
    if isinstance(instance, list) and "items" in schema:
        for index, item in enumerate(instance):
            found += violations(item, schema["items"], root, f"{path}[{index}]")
    return found


async def _export() -> tuple[Report, dict[str, Any]]:
    report, _ = await run_verification(make_state(), OfflineEngine(), Recording())
    return report, json.loads(json.dumps(report.model_dump(mode="json", by_alias=True)))


def test_the_shipped_schema_is_generated_from_the_current_models() -> None:
    from importlib import resources

    from deep_research.schemas import REPORT_SCHEMA_FILE

    shipped = resources.files("deep_research.schemas").joinpath(REPORT_SCHEMA_FILE).read_text()
    assert shipped == render(report_schema()), (
        "src/deep_research/schemas/report.v1.json is stale: run "
        "`.venv/bin/python -m deep_research.schemas` and commit the result"
    )


async def test_the_json_export_validates_against_the_shipped_schema() -> None:
    report, data = await _export()
    schema = shipped_report_schema()
    assert violations(data, schema, schema) == []
    assert data["schemaVersion"] == "v1" and "claimId" in data["citations"][0]
    assert data["verification"]["supportedRatio"] == report.verification.supported_ratio
    assert {"positionStart", "positionEnd", "claimType", "citationKeys"} <= data["claims"][0].keys()


async def test_the_export_round_trips_through_the_model() -> None:
    report, data = await _export()
    again = TypeAdapter(Report).validate_json(json.dumps(data))
    assert again == report
    assert again.model_dump(mode="json", by_alias=True) == data


async def test_the_schema_check_catches_a_broken_export() -> None:
    _, data = await _export()
    schema = shipped_report_schema()
    del data["schemaVersion"]
    data["claims"][0]["verdict"] = "MAYBE"
    data["references"][0]["number"] = 0
    data["metrics"]["surprise"] = 1
    problems = violations(data, schema, schema)
    assert any("missing schemaVersion" in p for p in problems)
    assert any(p.startswith("$.claims[0].verdict") for p in problems)
    assert any(p.startswith("$.references[0].number: below 1") for p in problems)
    assert any("unexpected surprise" in p for p in problems)


def test_the_judge_tool_fills_claims_with_the_shipped_schemas_verdicts_and_bounds() -> None:
    # The LLM engine's verdicts become the claims' verdict and confidence in Report v1, so the
    # tool the model is given must offer exactly the values the shipped schema allows.
    from langchain_core.utils.function_calling import convert_to_openai_tool

    from deep_research.engines.schemas import VerdictBatch

    shipped = shipped_report_schema()
    tool = convert_to_openai_tool(VerdictBatch)["function"]["parameters"]
    verdict = tool["properties"]["verdicts"]["items"]["properties"]
    claim = shipped["$defs"]["Claim"]["properties"]
    number = next(o for o in claim["confidence"]["anyOf"] if o.get("type") == "number")

    assert verdict["verdict"]["enum"] == shipped["$defs"]["Verdict"]["enum"]
    assert (verdict["confidence"]["minimum"], verdict["confidence"]["maximum"]) == (
        number["minimum"],
        number["maximum"],
    )
