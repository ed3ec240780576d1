"""Is a user's ``json_schema`` one that extraction can honour? Checked before any job exists.

A schema that is not valid JSON Schema (``{"properties": 5}``), that has nothing to extract, or
that constrains values with keywords the extractor cannot enforce (``not``, ``if``/``then``,
``patternProperties``, …) would otherwise become a job whose answer silently ignores the
user's intent. ``problem`` names the first such problem with its place in the schema, or says
nothing. Annotations (``title``, ``description``, ``examples``, ``default``…) and the
keywords pydantic writes are accepted; unknown keywords that constrain nothing (vendor
extensions such as ``x-order``) are accepted too, as JSON Schema says.
"""

from __future__ import annotations

from typing import Any

import jsonschema
from jsonschema.exceptions import SchemaError

# Keywords the extractor honours (types, nesting, references and the value rules of coerce()),
# or that constrain nothing.
SUPPORTED = frozenset({
    "$schema", "$id", "$ref", "$defs", "definitions", "$comment", "$anchor",
    "type", "properties", "required", "items", "prefixItems", "additionalProperties",
    "anyOf", "oneOf", "allOf", "enum", "const", "format", "pattern",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
    "title", "description", "examples", "default", "deprecated", "readOnly", "writeOnly",
    "nullable", "discriminator",
})
# JSON Schema keywords that constrain values in ways extraction cannot follow.
UNSUPPORTED = frozenset({
    "not", "if", "then", "else", "dependentRequired", "dependentSchemas", "dependencies",
    "patternProperties", "propertyNames", "unevaluatedProperties", "unevaluatedItems",
    "contains", "minContains", "maxContains", "contentSchema", "$dynamicRef", "$recursiveRef",
})
SCHEMA_MAPS = ("properties", "$defs", "definitions")
SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")


def _where(path: list[str | int]) -> str:
    return "/" + "/".join(str(p) for p in path) if path else "the top level"


def _walk(node: Any, path: list[str | int]) -> str | None:
    if not isinstance(node, dict):
        return None
    bad = sorted(UNSUPPORTED & node.keys())
    if bad:
        return f"'{bad[0]}' at {_where(path)} is a constraint the extractor cannot follow; remove it"
    for key in SCHEMA_MAPS:
        sub = node.get(key)
        if isinstance(sub, dict):
            for name, child in sub.items():
                if (found := _walk(child, [*path, key, name])) is not None:
                    return found
    for key in SCHEMA_LISTS:
        sub = node.get(key)
        if isinstance(sub, list):
            for i, child in enumerate(sub):
                if (found := _walk(child, [*path, key, i])) is not None:
                    return found
    for key in ("items", "additionalProperties"):
        if (found := _walk(node.get(key), [*path, key])) is not None:
            return found
    return None


def problem(schema: Any) -> str | None:
    """What makes ``schema`` unusable for extraction, in words; ``None`` when it is fine."""
    if not isinstance(schema, dict):
        return "json_schema must be a JSON object"
    try:
        jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator).check_schema(schema)
    except SchemaError as e:
        where = _where(list(e.path))
        return f"json_schema is not a valid JSON Schema: {e.message} (at {where})"
    if not isinstance(schema.get("properties"), dict) or not schema["properties"]:
        return "json_schema must be a JSON schema object with properties (there is nothing to extract)"
    return _walk(schema, [])


# ---------------------------------------------------------------- answers


def nullable(node: Any, wrap: bool = False) -> Any:
    """The schema with every value allowed to be ``null`` (what was not found)."""
    if not isinstance(node, dict):
        return node
    out = dict(node)
    for key in ("properties", "$defs", "definitions"):
        if isinstance(out.get(key), dict):
            out[key] = {n: nullable(s, key == "properties") for n, s in out[key].items()}
    for key in ("items", "additionalProperties"):
        if isinstance(out.get(key), dict):
            out[key] = nullable(out[key], True)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        if isinstance(out.get(key), list):
            out[key] = [nullable(s, key == "prefixItems") for s in out[key]]
    return {"anyOf": [{"type": "null"}, out]} if wrap else out


def made_valid(data: Any, schema: Any, limit: int = 100) -> tuple[list[tuple[tuple[Any, ...], str]], bool]:
    """Set to ``null``, in place, each value of ``data`` that does not validate against
    ``nullable(schema)`` (a number under the schema's ``minimum``, a text its ``pattern`` or
    ``maxLength`` refuses…). Returns the paths set to ``null`` with jsonschema's message, and
    whether ``data`` is valid now (``False`` when the answer as a whole does not fit)."""
    if not isinstance(schema, dict):
        return [], True
    check = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)(nullable(schema))
    fixed: list[tuple[tuple[Any, ...], str]] = []
    for _ in range(limit):
        try:
            error = next(iter(check.iter_errors(data)), None)
        except Exception:  # noqa: BLE001 - a schema jsonschema cannot apply (a bad pattern, a bad ref)
            return fixed, True
        if error is None:
            return fixed, True
        path = tuple(error.absolute_path)
        fixed.append((path, error.message))
        if not path:
            return fixed, False
        node = data
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = None
    return fixed, False

