"""What the Python peers print of a `tools/call` result, on either SDK generation (2.x spells
the error flag `is_error`, 1.x `isError`): whether it is an error, its text blocks joined by a
newline, and the run's report (`_meta` of its first block)."""

REPORT_KEY = "io.github.ladoga-rs/run"


def described(result):
    """`result` as the peers' JSON line says it: `is_error`, `text` and `report`."""
    is_error = getattr(result, "is_error", None) or getattr(result, "isError", None)
    first = result.content[0] if result.content else None
    return {
        "is_error": bool(is_error),
        "text": "\n".join(block.text for block in result.content if block.type == "text"),
        "report": ((first.meta if first else None) or {}).get(REPORT_KEY),
    }
