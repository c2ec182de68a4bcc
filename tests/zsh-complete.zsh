# SPDX-License-Identifier: GPL-2.0-or-later
# zsh -f tests/zsh-complete.zsh COMPDIR LINE
# Prints the words zsh's completion offers for LINE (the cursor at its end),
# one a line: an interactive zsh in a pseudo-terminal (zpty) loads _numaplace
# from COMPDIR through compinit, as a user's shell does, and LINE is typed
# with a TAB. compadd is wrapped to print each word a completion function
# adds that matches what is typed; the marker lines around the completion
# (compprefuncs, comppostfuncs) keep the echo of the line out.
zmodload zsh/zpty || exit 1
local compdir=$1 line=$2 out l
zpty np zsh -f -i
zpty -w np "PS1= PS2= RPS1=; unsetopt zle_bracketed_paste 2>/dev/null"
zpty -w np "fpath=(${(q)compdir} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w np 'bindkey "^I" complete-word'
zpty -w np 'np-mark() { print -rn -- $'"'"'\n\x1e\n'"'"' }'
zpty -w np 'compprefuncs=(np-mark); comppostfuncs=(np-mark exit)'
zpty -w np 'zstyle ":completion:*" list-prompt ""; zstyle ":completion:*" menu no'
zpty -w np 'compadd() {
	if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
	local -a np_hits; builtin compadd -O np_hits "$@"; local ret=$?
	(( $#np_hits )) && print -rl -- "np-hit:"$^np_hits
	builtin compadd "$@"; return ret
}'
zpty -w np "$line"$'\t'
while zpty -r np l; do out+=$l; done
print -r -- "$out" | tr -d '\r' | sed -n '/^\x1e$/,/^\x1e$/p' | sed -n 's/^np-hit://p'
