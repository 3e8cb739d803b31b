# Tab completes command names and paths.

$< ech\t done\r
done
$< cat /proc/vers\t\r
~ fentros version .+
