bspkit VERSION: Quake-family maps and models .*
\s*
usage: bspkit COMMAND \[ARGS\] \(bspkit COMMAND --help for details\)
\s*
commands:
...
  trace +.*
  navmesh +.*
  path +.*
