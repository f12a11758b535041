# the command list is a pattern: a new command does not change this case
frobnicate
