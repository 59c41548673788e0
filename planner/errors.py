"""Errors a user can cause. The CLI prints them as one line on stderr with exit code 2; the GUI shows them."""


class UserError(ValueError):
    """Bad input the user can fix: an unknown model, a malformed file, an impossible layout, a bad number.

    The message names the problem in one line, in plain words, without a traceback.
    """
