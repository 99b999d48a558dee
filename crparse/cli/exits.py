"""The exit statuses of every subcommand, in one place (the README documents them)."""

OK = 0  # every input parsed (warnings allowed); nothing to report
FOUND = 1  # `refs --broken`, `cite-check`: found something to report; `diff`: a text differs; `search`: nothing found
REFUSED = 2  # an input was refused or could not be read (not a CR, unsupported, missing)
INTERNAL = 3  # a bug in crparse: reported as one line, never a traceback
INTERRUPTED = 130  # Ctrl-C
