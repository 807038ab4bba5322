"""Schemathesis hooks for the Notes API (loaded through SCHEMATHESIS_HOOKS by schemathesis.sh).

`POST /v1/content` takes `application/vnd.notes.content-batch`, a framed body schemathesis
cannot build from a JSON schema: each frame is the line `<sha256 hex> <size>\n` and then exactly
`size` bytes. The strategy below draws well-formed batches (the server must store them), frames
whose bytes do not match their hash, and arbitrary bytes (the server must refuse them with a
documented 4xx, never a 5xx).
"""
import hashlib

import schemathesis
from hypothesis import strategies as st


def _frame(data: bytes, honest: bool) -> bytes:
    digest = hashlib.sha256(data if honest else data + b"!").hexdigest()
    return f"{digest} {len(data)}\n".encode() + data


_frames = st.lists(
    st.tuples(st.binary(max_size=512), st.booleans()).map(lambda pair: _frame(*pair)),
    max_size=4,
).map(b"".join)

schemathesis.openapi.media_type(
    "application/vnd.notes.content-batch",
    st.one_of(_frames, st.binary(max_size=1024)),
)
