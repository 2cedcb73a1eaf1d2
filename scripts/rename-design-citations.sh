#!/usr/bin/env bash
# Points citations of the design contract at the repository's own copy, docs/design.md:
# "DESIGN.md §n" becomes "docs/design.md §n", and so does the short form "DESIGN §n"; any other
# mention of DESIGN.md as a name of its own (`DESIGN.md` clauses) too. A path that merely ends in
# DESIGN.md (../shared/design/DESIGN.md) and names such as RECOVERY_DESIGN are left alone, and a
# second run changes nothing. A file that names the old forms on purpose (this script, the test of
# citations) carries the line "rename-design-citations: skip" and is left alone.
#
#   scripts/rename-design-citations.sh PATH...
#
# Each PATH is a file or a folder (searched for .ts, .tsx, .js, .mjs, .md, .yaml, .yml, .sh and
# .toml files, node_modules and dist left out). Prints every file it changed.
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: scripts/rename-design-citations.sh PATH..." >&2
  exit 2
fi

# Not preceded by a path, a word or a dot: a mention of the file itself, not of another file so named.
BEFORE='(^|[^/[:alnum:]_.-])'

for path in "$@"; do
  if [ ! -e "$path" ]; then
    echo "rename-design-citations: no such file or folder: $path" >&2
    exit 2
  fi
  find "$path" \( -name node_modules -o -name dist -o -name .git \) -prune -o -type f \
    \( -name '*.ts' -o -name '*.tsx' -o -name '*.js' -o -name '*.mjs' -o -name '*.md' -o -name '*.yaml' \
       -o -name '*.yml' -o -name '*.sh' -o -name '*.toml' \) -print
done | sort -u | while IFS= read -r file; do
  if grep -Eq "${BEFORE}DESIGN(\\.md| §)" "$file" && ! grep -q "rename-design-citations: skip" "$file"; then
    sed -E -i \
      -e "s#${BEFORE}DESIGN\\.md#\\1docs/design.md#g" \
      -e "s#${BEFORE}DESIGN §#\\1docs/design.md §#g" \
      "$file"
    echo "$file"
  fi
done
