"""One JSON error shape, ``{"code", "error", "status"}``, and the handlers that produce it.

Every failure a client can see — a ``ReverieError``, a validation error, an unknown route, a
wrong method, a refused Host / Origin / token, an oversized body, a bug — is rendered here,
so clients switch on ``code`` and never parse prose or a framework's default HTML.
"""

from __future__ import annotations

import functools
import logging
import re
from typing import Any
from urllib.parse import unquote

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse, Response

from reverie.errors import (
    ClosedError,
    ConflictError,
    EmbedderError,
    InvalidInputError,
    NotFoundError,
    NotPermittedError,
    ReadOnlyError,
    ReverieError,
    StorageError,
)
from reverie.http.messages import for_http
from reverie.model.json_check import check_json, wrong_type

logger = logging.getLogger(__name__)

#: Codes for framework-level HTTP errors (everything else comes from ``ReverieError.code``).
HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    408: "request_timeout",
    413: "limit_exceeded",
    415: "unsupported_media_type",
}


def error_response(status: int, code: str, text: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"code": code, "error": text, "status": status}, status_code=status, headers=headers)


def status_for(exc: ReverieError) -> int:
    """Bad input 400, unknown id 404, contradicts state 409; the server's own trouble 5xx."""
    if isinstance(exc, InvalidInputError):
        return 400
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, ConflictError):
        return 409
    if isinstance(exc, ReadOnlyError | NotPermittedError):  # inspection only / an operator operation
        return 403
    if isinstance(exc, ClosedError | StorageError):
        return 503
    if isinstance(exc, EmbedderError):
        return 502
    if exc.code == "not_implemented":
        return 501
    return 500


async def _reverie(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ReverieError)
    scope = request.path_params.get("scope")
    text = for_http(exc.code, exc.message, request.url.path, unquote(scope) if isinstance(scope, str) else None)
    return error_response(status_for(exc), exc.code, text)


async def _validation(request: Request, exc: Exception) -> Response:
    """A request the schema refuses is bad input like any other: 400 ``invalid_input``.

    FastAPI's default is 422, while ``Memory``'s own checks (an empty text, a scope) answer 400
    with the same code: one status per code, so a client can switch on either. A body is worded
    by the checker MCP's tool arguments go through (``reverie.model.json_check``), so a wrong
    type reads the same on both faces; pydantic's words remain for what that checker leaves to
    it (a malformed time).
    """
    assert isinstance(exc, RequestValidationError)
    refused = _checked_body(request, exc) or _query_number(exc)
    if refused is not None:
        return await _reverie(request, refused)
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err.get("loc", ()))
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return error_response(400, "invalid_input", "; ".join(parts) or "invalid request")


def _checked_body(request: Request, exc: RequestValidationError) -> ReverieError | None:
    """The first problem ``json_check`` finds in the refused body against the route's request model
    (its JSON schema, the one ``/openapi.json`` documents), or None: not a body problem, a body
    not read as one model (embedded fields), or one only pydantic refuses."""
    if not any(err.get("loc", ())[:1] == ("body",) for err in exc.errors()):
        return None
    route = request.scope.get("route")
    field = getattr(route, "body_field", None)
    model = getattr(getattr(field, "field_info", None), "annotation", None)
    if getattr(route, "_embed_body_fields", True) or not (isinstance(model, type) and issubclass(model, BaseModel)):
        return None
    try:
        # A null is checked like any value: a field that takes none must say so (MCP skips nulls).
        check_json(_body_schema(model), exc.body, root="the body", null_is_absent=False)
    except ReverieError as problem:
        return problem
    except Exception:  # a schema shape the checker misreads: the request is refused all the same
        logger.exception("json_check failed on %s's schema; answering in pydantic's words", model.__name__)
    return None


@functools.cache
def _body_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()


#: pydantic's failures to read a query value as a number or a flag, and the JSON type it must be.
_QUERY_TYPES = {"int_parsing": "integer", "int_type": "integer", "float_parsing": "number", "bool_parsing": "boolean"}


def _query_number(exc: RequestValidationError) -> ReverieError | None:
    """``?limit=ten``: refused in the words MCP's ``"limit": "ten"`` is (``json_check.wrong_type``)."""
    for err in exc.errors():
        loc = tuple(err.get("loc", ()))
        if len(loc) == 2 and loc[0] == "query" and err.get("type") in _QUERY_TYPES:
            return wrong_type(str(loc[1]), [_QUERY_TYPES[err["type"]]], err.get("input"))
    return None


#: The 404 of a ``/v1/scopes/…`` path that matches no route; the usual cause is a raw ``/`` in a
#: scope, a conversation id or a person's name.
SCOPE_404 = (
    "no such route. A scope, a conversation id and a person's name are each one path segment: send a '/' "
    "inside one as %2F (scope 'team/alpha' → /v1/scopes/team%2Falpha/items; conversation id "
    "'support/2026-12' → …/conversations/support%2F2026-12/messages); the routes are listed at /openapi.json"
)


#: FastAPI's text for a body it could not read as JSON for a reason other than a syntax error.
_UNPARSED = "There was an error parsing the body"


def unparsed_body(cause: BaseException | None) -> str:
    """What was wrong with a body FastAPI could not parse, and how to fix it.

    FastAPI answers a body that is not UTF-8, or JSON nested past the decoder's recursion limit,
    with only "There was an error parsing the body" (outside tester); the exception it chained
    says which it was.
    """
    if isinstance(cause, UnicodeDecodeError):
        return (
            f"the body is not valid UTF-8 (byte 0x{cause.object[cause.start]:02x} at position {cause.start}); "
            "send JSON encoded as UTF-8"
        )
    if isinstance(cause, RecursionError):
        return (
            "the body is JSON nested too deeply to read (thousands of levels); real data nests a few levels "
            "(meta at most Limits.max_meta_depth)"
        )
    digits = _LONG_INT.search(str(cause)) if isinstance(cause, ValueError) else None
    if digits is not None:
        # Python's own refusal ("Exceeds the limit (4300 digits) for integer string conversion"):
        # the body *is* JSON, so "could not be read as JSON" sent the caller looking for a typo.
        return (
            f"the body holds an integer of {digits.group(2)} digits, longer than a number can be read "
            f"({digits.group(1)} digits); no score, count or value is that long: send a number in range, "
            "or a value as a string"
        )
    return "the body could not be read as JSON; send one JSON object encoded as UTF-8"


#: Python's message for ``int(text)`` past ``sys.get_int_max_str_digits()``.
_LONG_INT = re.compile(r"Exceeds the limit \((\d+) digits\) for integer string conversion: value has (\d+) digits")


async def _http(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 400 and exc.detail == _UNPARSED and isinstance(exc.__cause__, ReverieError):
        # Our own body reader refused it (``jsonbody``: a repeated key, an over-long integer):
        # answered like any refusal of input, with its code and the limit it names.
        return await _reverie(request, exc.__cause__)
    code = HTTP_CODES.get(exc.status_code, "http_error")
    detail = exc.detail if isinstance(exc.detail, str) else code
    if exc.status_code == 400 and detail == _UNPARSED:
        detail = unparsed_body(exc.__cause__)
    if exc.status_code == 404 and detail == "Not Found" and request.url.path.startswith("/v1/scopes/"):
        detail = SCOPE_404
    headers: dict[str, Any] = dict(exc.headers or {})
    return error_response(exc.status_code, code, detail, headers)


def install(app: FastAPI) -> None:
    """Register the handlers (unexpected exceptions are caught by ``security.Guard``)."""
    app.add_exception_handler(ReverieError, _reverie)
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(HTTPException, _http)
