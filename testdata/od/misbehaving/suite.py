# Tests that misbehave as processes, for the runner protocol's failure modes
# (docs/order-dependence.md, "When the runner misbehaves"): the runner exits in the middle of a
# schedule, is killed by a signal, ends normally without a result, or hangs with a child process
# that must die with it. None of them is a test failure, and none may be reported as one.
import os
import signal
import subprocess
import time


@test("Proc.testPass")
def test_pass(s):
    s.put("ran", True)


@test("Proc.testAfter")
def test_after(s):
    s.get("ran", False)


@test("Proc.testSlow")
def test_slow(s):
    time.sleep(float(os.environ.get("OD_EXAMPLE_SLEEP", "0.2")))


@test("Proc.testCrash")
def test_crash(s):
    os._exit(3)


@test("Proc.testQuit")
def test_quit(s):
    os._exit(0)


@test("Proc.testSignal")
def test_signal(s):
    os.kill(os.getpid(), signal.SIGKILL)


@test("Proc.testHang")
def test_hang(s):
    # A child in the runner's process group, as a forked server would be: the timeout must
    # kill it too. Its pid goes to $OD_EXAMPLE_SHARED/children so that a test can check.
    child = subprocess.Popen(["sleep", "600"])
    shared = os.environ.get("OD_EXAMPLE_SHARED")
    if shared:
        with open(os.path.join(shared, "children"), "a") as f:
            f.write(f"{child.pid}\n")
    time.sleep(600)
