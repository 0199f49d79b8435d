#!/bin/bash
# A login-like program for the urlfetch test bed's telnetd (telnetd -E runs it
# on the session's pty instead of /bin/login). It never runs a real login or a
# shell: it asks for a user and password, checks them against the fixed test
# account below, then answers a few commands from a tiny loop of builtins.
#
#   banner:   urlfetch test bed telnet service
#   prompts:  "login: ", "Password: " (not echoed), then "urlfetch$ "
#   account:  tester / telnet-1738
#   commands: echo TEXT, whoami, hostname, date, help, exit (also logout, quit)

TEST_USER=tester
TEST_PASSWORD=telnet-1738

# Telnet clients end a line with CR LF or CR NUL, and telnetd hands the pty
# either CR or CR LF depending on the mode negotiated; the pty turns CR into LF.
# So a line end may arrive as one or two LFs: empty lines are skipped, and
# never answered, at every prompt.
readline() {
	while IFS= read -r REPLY; do
		REPLY=${REPLY%$'\r'}
		[[ -n $REPLY ]] && return 0
	done
	return 1
}

printf 'urlfetch test bed telnet service\n\n'
tries=0
while :; do
	printf 'login: '
	readline || exit 0
	user=$REPLY
	printf 'Password: '
	stty -echo 2>/dev/null
	readline || exit 0
	password=$REPLY
	stty echo 2>/dev/null
	printf '\n'
	if [[ $user == "$TEST_USER" && $password == "$TEST_PASSWORD" ]]; then
		break
	fi
	printf 'Login incorrect\n'
	tries=$((tries + 1))
	if ((tries >= 3)); then
		exit 1
	fi
done

printf 'Welcome to the urlfetch test bed, %s.\n' "$TEST_USER"
while printf 'urlfetch$ ' && readline; do
	set -f
	words=($REPLY)
	set +f
	case ${words[0]-} in
	echo)
		if ((${#words[@]} > 1)); then
			printf '%s\n' "${REPLY#*echo }"
		else
			printf '\n'
		fi
		;;
	whoami) printf '%s\n' "$TEST_USER" ;;
	hostname) printf 'telnet.urlfetch.test\n' ;;
	date) printf '%(%Y-%m-%d %H:%M:%S)T\n' -1 ;;
	help) printf 'commands: echo TEXT, whoami, hostname, date, help, exit\n' ;;
	exit | logout | quit)
		printf 'Goodbye.\n'
		exit 0
		;;
	*) printf '%s: command not found\n' "${words[0]}" ;;
	esac
done
