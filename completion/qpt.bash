# shellcheck shell=bash
# Bash completion for qpt: its commands, each command's options and the
# values of --opt=a|b options, read from the --help texts of the qpt
# being completed (so they stay what the command takes), and file names
# for the rest.  Installed as bash-completion/completions/qpt.

# _qpt_help [CMD]: the help text of qpt (or of qpt CMD).
_qpt_help() {
	"${_qpt_cmd:-qpt}" "$@" --help 2>/dev/null
}

# _qpt_options CMD: the options (-x and --long) its help lists: every one
# in its synopsis, and those an option line begins with (its words up to
# the description: options, and their arguments in capitals).
_qpt_options() {
	_qpt_help "$1" | awk '
		/^(usage: | +)qpt / {
			while (match($0, /(^|[ ,[|])--?[A-Za-z][A-Za-z0-9-]*/)) {
				o = substr($0, RSTART, RLENGTH)
				sub(/^[ ,[|]/, "", o)
				print o
				$0 = substr($0, RSTART + RLENGTH)
			}
			next
		}
		/^ +-/ && match($0, /^ +/) && RLENGTH <= 8 {
			for (i = 1; i <= NF; i++) {
				w = $i
				sub(/^\[/, "", w)
				if (w ~ /^--?[A-Za-z]/) {
					sub(/[[=,\]].*$/, "", w)
					print w
				} else if (w !~ /^[A-Z[=]/) {
					break
				}
			}
		}' | sort -u
	printf '%s\n' -h --help
}

# _qpt_values CMD OPT: the values of --OPT=a|b|c in CMD's help.
_qpt_values() {
	_qpt_help "$1" | grep -oE -- "$2=[a-z][a-z0-9|-]*" |
		sed "s/^$2=//" | tr '|' '\n' | sort -u
}

_qpt() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local _qpt_cmd=${COMP_WORDS[0]} cmd="" i

	COMPREPLY=()
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--) # qpt record ... -- COMMAND: a command, then its arguments
			if ((i == COMP_CWORD - 1)); then
				mapfile -t COMPREPLY < <(compgen -c -- "$cur")
			else
				mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			fi
			return 0
			;;
		-*) ;;
		*) [ -z "$cmd" ] && cmd=${COMP_WORDS[i]} ;;
		esac
	done
	if [ -z "$cmd" ]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_qpt_help |
			sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p') help
			-V --version -h --help" -- "$cur")
		return 0
	fi
	if [ "$cmd" = help ]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_qpt_help |
			sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')" -- "$cur")
		return 0
	fi
	# --opt=value: one word, or three where COMP_WORDBREAKS has '='
	if [ "$cur" = "=" ] && [[ $prev == --* ]]; then
		mapfile -t COMPREPLY < <(_qpt_values "$cmd" "$prev")
		return 0
	fi
	if [ "$prev" = "=" ] && ((COMP_CWORD > 1)) &&
		[[ ${COMP_WORDS[COMP_CWORD - 2]} == --* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_qpt_values "$cmd" \
			"${COMP_WORDS[COMP_CWORD - 2]}")" -- "$cur")
		return 0
	fi
	case $cur in
	--*=*)
		mapfile -t COMPREPLY < <(compgen -P "${cur%%=*}=" -W \
			"$(_qpt_values "$cmd" "${cur%%=*}")" -- "${cur#*=}")
		return 0
		;;
	-*)
		mapfile -t COMPREPLY < <(compgen -W "$(_qpt_options "$cmd")" \
			-- "$cur")
		return 0
		;;
	esac
	case $prev in
	-p | --pid)
		mapfile -t COMPREPLY < <(compgen -W "$(ls /proc | grep -E '^[0-9]+$')" -- "$cur")
		return 0
		;;
	-e | --event | -C | --cpu | -c | --count | -F | --freq | --tid | \
		--last | --time | --sym | --lbr-depth | --lbr-period | --insns | \
		--max-lbr | --bind-to-cpu | --on-signal | --snapshot-on | -m | \
		--mmap-pages)
		return 0 # a value, not a file
		;;
	esac
	mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	return 0
}
complete -o filenames -F _qpt qpt
