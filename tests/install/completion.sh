#!/usr/bin/env bash
# The bash completion (completion/qpt.bash), driven in bash as readline
# would: the commands of qpt --help, each command's options as its --help
# lists them (read by man_options.py's reader), --opt=VALUE values in both
# word splittings, command names after record's --, files elsewhere.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
PATH=$(dirname "$QPT"):$PATH
. "$QPT_SRC/completion/qpt.bash"
complete -p qpt | grep -q -- '-F _qpt' || bad "no completion for qpt"

comp() { # WORDS...: the completions of the last word, sorted, one a line
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	_qpt
	printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort -u
}
want() { # WHAT WANT GOT
	if [ "$2" != "$3" ]; then
		bad "$1: want $(echo $2), got $(echo $3)"
	fi
}

cmds=$(qpt --help | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p' | sort)
[ -n "$cmds" ] || bad "no commands in qpt --help"
want "qpt TAB" "$(printf '%s\n' $cmds help -V --version -h --help | sort)" \
	"$(comp qpt '')"
want "qpt help TAB" "$cmds" "$(comp qpt help '')"
want "qpt de" "decode" "$(comp qpt de)"
for c in $cmds; do
	opts=$(/usr/bin/python3 "$QPT_SRC/tests/install/man_options.py" \
		--help-options "$QPT" "$c")
	want "qpt $c -" "$opts" "$(comp qpt "$c" -)"
	want "qpt $c -i F" "$(comp qpt "$c" --input F)" "$(comp qpt "$c" -i F)"
done
want "decode --format=" "$(printf '%s\n' chrome-trace flame folded perfmon)" \
	"$(comp qpt decode --format = '')"
want "decode --format=f" "$(printf '%s\n' --format=flame --format=folded)" \
	"$(comp qpt decode --format=f)"
want "flame --format=" "$(printf '%s\n' folded svg)" "$(comp qpt flame --format = '')"
# files where a file goes, commands after --
cd "$tmp" || exit 1
: >trace.data
: >trace.svg
want "dump -i tr" "trace.data
trace.svg" "$(comp qpt dump -i tr)"
want "record -- qpt" "qpt" "$(comp qpt record -o x -- qpt | grep -x qpt)"
[ $fail -eq 0 ] && echo "ok: commands, options of $(echo $cmds | wc -w) commands, values, files"
exit $fail
