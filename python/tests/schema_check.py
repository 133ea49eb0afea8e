"""Checks the daemon's traffic against docs/accessoryd.openrpc.json: every request's params,
every result, error and notification, as the clients under test see them."""

from __future__ import annotations

import collections
import json
import threading
import warnings
from pathlib import Path
from typing import Any, Counter, Dict, List, Optional, Set, Tuple

import jsonschema

from accessoryd._protocol import Tracer

DOCUMENT = Path(__file__).resolve().parents[2] / "docs" / "accessoryd.openrpc.json"


class OpenRPC:
    """The OpenRPC document, with a JSON Schema validator for each method's params and result
    and for each notification's params."""

    def __init__(self, path: Path = DOCUMENT) -> None:
        self.document: Dict[str, Any] = json.loads(path.read_text())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            self._resolver = jsonschema.RefResolver.from_schema(self.document)
        self.methods: Dict[str, Dict[str, Any]] = {m["name"]: m for m in self.document["methods"]}
        self.notifications: Dict[str, Dict[str, Any]] = {n["name"]: n for n in self.document["x-notifications"]}
        self.protocol_error_codes = {self.resolve(e)["code"] for e in self.document["x-protocol-errors"]}

    def resolve(self, node: Dict[str, Any]) -> Dict[str, Any]:
        """`node`, or what its `$ref` points at inside the document."""
        while "$ref" in node:
            target: Any = self.document
            for part in node["$ref"].lstrip("#/").split("/"):
                target = target[part]
            node = target
        return node

    def validator(self, schema: Dict[str, Any]) -> jsonschema.Draft7Validator:
        jsonschema.Draft7Validator.check_schema(schema)
        return jsonschema.Draft7Validator(schema, resolver=self._resolver)

    def params_schema(self, method: str) -> Dict[str, Any]:
        """The by-name params as one object schema (unknown members refused, as the daemon does)."""
        descriptors = [self.resolve(p) for p in self.methods[method]["params"]]
        return {
            "type": "object",
            "properties": {d["name"]: d["schema"] for d in descriptors},
            "required": [d["name"] for d in descriptors if d.get("required")],
            "additionalProperties": False,
        }

    def result_schema(self, method: str) -> Dict[str, Any]:
        return dict(self.resolve(self.methods[method]["result"])["schema"])

    def error_codes(self, method: str) -> Set[int]:
        return {self.resolve(e)["code"] for e in self.methods[method].get("errors", [])}

    def notification_schema(self, name: str) -> Dict[str, Any]:
        return dict(self.notifications[name]["params"])

    def error_schema(self) -> Dict[str, Any]:
        return {"$ref": "#/components/schemas/ErrorObject"}


def problems(validator: jsonschema.Draft7Validator, value: Any) -> List[str]:
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in validator.iter_errors(value)]


class Recorder:
    """Validates every message that passes the tracers it makes; keeps what failed and what
    was covered. Any thread."""

    def __init__(self, spec: Optional[OpenRPC] = None) -> None:
        self.spec = spec or OpenRPC()
        self.failures: List[str] = []
        #: ("result", method), ("error", method, code), ("notification", name), ...
        self.seen: Counter[Tuple[Any, ...]] = collections.Counter()
        self._lock = threading.Lock()
        self._validators: Dict[Tuple[str, str], jsonschema.Draft7Validator] = {}

    def _validator(self, kind: str, name: str) -> jsonschema.Draft7Validator:
        key = (kind, name)
        if key not in self._validators:
            schema = {
                "params": self.spec.params_schema,
                "result": self.spec.result_schema,
                "notification": self.spec.notification_schema,
            }[kind](name) if kind != "error" else self.spec.error_schema()
            self._validators[key] = self.spec.validator(schema)
        return self._validators[key]

    def tracer(self) -> Tracer:
        """A tracer for one connection (request ids are per connection)."""
        sent: Dict[Any, Tuple[str, List[str]]] = {}

        def trace(direction: str, message: Dict[str, Any]) -> None:
            with self._lock:
                if direction == "send":
                    self._sent(message, sent)
                else:
                    self._received(message, sent)

        return trace

    def _sent(self, message: Dict[str, Any], sent: Dict[Any, Tuple[str, List[str]]]) -> None:
        method = message["method"]
        if method not in self.spec.methods:
            sent[message["id"]] = (method, ["the method is not in the document"])
            return
        found = problems(self._validator("params", method), message.get("params", {}))
        sent[message["id"]] = (method, found)
        self.seen[("request", method)] += 1

    def _received(self, message: Dict[str, Any], sent: Dict[Any, Tuple[str, List[str]]]) -> None:
        if "id" not in message:
            name = message.get("method")
            if name not in self.spec.notifications:
                self.failures.append(f"notification {name!r} is not in the document: {message}")
                return
            found = problems(self._validator("notification", name), message.get("params"))
            self._note(found, f"notification {name}", message)
            self.seen[("notification", name)] += 1
            return
        method, request_problems = sent.pop(message["id"], ("?", ["a response to an id never sent"]))
        if "result" in message:
            if request_problems:
                self.failures.append(
                    f"{method} succeeded although its request breaks the document ({request_problems}): {message}"
                )
                return
            self._note(problems(self._validator("result", method), message["result"]), f"result of {method}", message)
            self.seen[("result", method)] += 1
            return
        error = message.get("error")
        self._note(problems(self._validator("error", ""), error), f"error of {method}", message)
        code = error.get("code") if isinstance(error, dict) else None
        allowed = self.spec.protocol_error_codes | (self.spec.error_codes(method) if method in self.spec.methods else set())
        if code not in allowed:
            self.failures.append(f"{method} answered error {code}, which the document does not list for it: {message}")
        self.seen[("error", method, code)] += 1

    def _note(self, found: List[str], what: str, message: Dict[str, Any]) -> None:
        if found:
            self.failures.append(f"{what} does not match the document: {found}; message: {json.dumps(message)[:500]}")

    def take_failures(self) -> List[str]:
        with self._lock:
            failures, self.failures = self.failures, []
        return failures
