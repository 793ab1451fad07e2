"""The shell's top floor: every `reddog` command and the interactive players; may use every floor below."""
