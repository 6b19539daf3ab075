"""Cases the audit still finds not OK, each with what is wrong and where it belongs.

The ctest "audit: bad inputs" fails on any silent-wrong, crash, hang or refused-unclear case
that is NOT listed here, so a regression or a new finding turns it red; a listed case is
reported as "open" on every run, and a listed case that has become OK is reported too, so
that it is removed from this list. Fix the code, then delete the line: never add a case to
hide a new finding without an issue note saying why.
"""

OPEN = {
}
