#!/bin/sh
# The native demo in a real window: GLFW on an X server in memory (Xvfb; GLX on Mesa llvmpipe),
# driven by synthetic input (xdotool) the way a user drives it: G enters gun mode, a click locks
# the pointer, a mouse move pitches the view down, the held left button fires, Esc frees the
# pointer and Esc closes. Checks: the window's last frame is not blank and has no GL error
# (crowd-demo --shot --gl-debug), rounds were fired, splats landed, people were hit, and every
# kill left the crowd one instance smaller.
#   test_demo_window.sh crowd-demo crowd-bake
set -eu
demo=$1
bake=$2
for tool in xvfb-run xdotool; do
    command -v $tool > /dev/null || { echo "test_demo_window: $tool is missing (scripts/setup.sh installs it)"; exit 1; }
done
"$bake" --density 0.5 --frames 8 --clips idle,walk,run --out demo_window.crowd --quiet
count=6000

# Runs inside the X server: the demo in the background, the input once its window is mapped.
# Events queue in the window and the demo handles them in order, whatever its frame rate.
cat > demo_window_drive.sh << 'DRIVE'
#!/bin/sh
set -eu
"$1" demo_window.crowd --count "$2" --size 480x270 --shot demo_window.png --gl-debug > demo_window.log 2>&1 &
pid=$!
window=$(timeout 120 xdotool search --sync --onlyvisible --name crowdbake | head -1) || true
[ -n "$window" ] || { kill $pid 2> /dev/null; echo "no window within 120 s" >> demo_window.log; exit 1; }
xdotool mousemove --window "$window" 240 135
sleep 1
xdotool key --window "$window" i # the grass off: its blades cost most of a frame on llvmpipe
xdotool key --window "$window" 5 # the gather scenario: the crowd comes to the middle
xdotool key --window "$window" F2 F2 # the HUD off (simple, then details, then off)
xdotool key --window "$window" g # gun mode (the walk camera)
xdotool click 1                  # locks the pointer; that click does not fire
sleep 1
xdotool mousedown 1
for step in 1 2 3 4 5 6 7 8 9 10 11 12; do # sweep round while firing
    sleep 0.3
    xdotool mousemove_relative 40 0
done
xdotool mouseup 1
sleep 2                                      # the last droplets land
xdotool key --window "$window" Escape Escape # the first frees the pointer, the second closes
timeout 120 tail --pid=$pid -f /dev/null || { kill $pid; echo "the window did not close on Esc" >> demo_window.log; exit 1; }
wait $pid
DRIVE
chmod +x demo_window_drive.sh
xvfb-run -a -s "-screen 0 640x480x24" ./demo_window_drive.sh "$demo" $count || {
    cat demo_window.log
    echo "test_demo_window: the demo failed"
    exit 1
}
cat demo_window.log
live=$(sed -n 's/.* \([0-9]*\) instances live at the end.*/\1/p' demo_window.log)
set -- $(sed -n 's/.*gun: \([0-9]*\) rounds, \([0-9]*\) kills, \([0-9]*\) splats.*/\1 \2 \3/p' demo_window.log)
[ $# -eq 3 ] && [ -n "$live" ] || { echo "test_demo_window: no gun line or live count in the demo's output"; exit 1; }
rounds=$1 kills=$2 splats=$3
echo "test_demo_window: $rounds rounds, $kills kills, $splats splats, $live of $count live"
[ "$rounds" -gt 0 ] || { echo "test_demo_window: the held button fired no round"; exit 1; }
[ "$splats" -gt 0 ] || { echo "test_demo_window: no paint splat landed"; exit 1; }
[ "$kills" -gt 0 ] || { echo "test_demo_window: no round hit anyone, looking down into $count"; exit 1; }
[ "$live" -eq $((count - kills)) ] || { echo "test_demo_window: $kills kills but $live of $count live"; exit 1; }
