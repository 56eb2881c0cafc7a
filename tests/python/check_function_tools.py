"""Checks lookout's function-tool exports with the SDKs' own types.

Reads a JSON object from stdin: {"openai": [...], "openai_strict": [...],
"openresponses": [...], "openresponses_strict": [...], "anthropic": [...],
"strict_calls": [{"name", "arguments"}]} (the exports of `lookout tools`). Prints one JSON
object of findings; exits 1 with the reasons when a check fails.
"""

import copy
import json
import sys

from pydantic import TypeAdapter

from anthropic.types import ToolParam
from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.responses import FunctionToolParam
from agents import FunctionTool
from agents.strict_schema import ensure_strict_json_schema
from agents.exceptions import UserError

exports = json.load(sys.stdin)
failures = []
findings = {}


def validate(adapter, items, label):
    for item in items:
        try:
            adapter.validate_python(item, strict=True)
        except Exception as error:  # pydantic's ValidationError, with the field named
            failures.append(f"{label} {item.get('name') or item['function']['name']}: {error}")


validate(TypeAdapter(ChatCompletionFunctionToolParam), exports["openai"], "openai")
validate(TypeAdapter(ChatCompletionFunctionToolParam), exports["openai_strict"], "openai --strict")
validate(TypeAdapter(FunctionToolParam), exports["openresponses"], "openresponses")
validate(TypeAdapter(FunctionToolParam), exports["openresponses_strict"], "openresponses --strict")
validate(TypeAdapter(ToolParam), exports["anthropic"], "anthropic")

for label in ("openai", "openresponses"):
    for item in exports[label]:
        strict = item.get("strict", item.get("function", {}).get("strict"))
        if strict is not False:
            failures.append(f"{label}: strict is {strict!r}, not false")
    for item in exports[label + "_strict"]:
        strict = item.get("strict", item.get("function", {}).get("strict"))
        if strict is not True:
            failures.append(f"{label} --strict: strict is {strict!r}, not true")


def noop(_context, _arguments):
    return ""


# The Agents SDK in its default strict mode: the strict form must pass through unchanged
# (nothing made required that was optional, no open object, no error); the plain form shows
# what the SDK would do to it.
changed_by_sdk = []
rejected_plain = []
for item in exports["openresponses_strict"]:
    params = item["parameters"]
    try:
        converted = ensure_strict_json_schema(copy.deepcopy(params), _reject_open_objects=True)
        FunctionTool(
            name=item["name"],
            description=item["description"],
            params_json_schema=params,
            on_invoke_tool=noop,
            strict_json_schema=True,
        )
    except UserError as error:
        failures.append(f"agents strict mode rejects {item['name']} --strict: {error}")
        continue
    if converted != params:
        changed_by_sdk.append(item["name"])
for item in exports["openresponses"]:
    try:
        ensure_strict_json_schema(copy.deepcopy(item["parameters"]), _reject_open_objects=True)
    except UserError:
        rejected_plain.append(item["name"])
if changed_by_sdk:
    failures.append(f"the Agents SDK rewrites the strict form of {changed_by_sdk}")
findings["agents_sdk_rejects_plain"] = rejected_plain
findings["tools"] = len(exports["openresponses_strict"])

if failures:
    print(json.dumps({"failures": failures, **findings}, indent=1))
    sys.exit(1)
print(json.dumps(findings))
