#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How long a gpslog page takes to be ready in a real browser, and how many bytes it fetched.

    Benchmarks/page-time.py URL [--timeout 60] [--chromium /usr/bin/chromium] [--press End,ArrowLeft,...]
                                [--eval EXPRESSION]

Starts headless Chromium with the DevTools protocol on a pipe (--remote-debugging-pipe: no port, no WebSocket
library), opens URL in real time (no virtual time, which stops the clock while requests are in flight), and waits
for the page's `data-ready` (set by app.js when the map, the charts and the arrows are drawn). Prints one JSON line:
{"readyMs": ..., "bytes": ..., "vertices": ..., "chartPoints": ...}: readyMs is the page's own performance.now()
at that moment (from the start of navigation), bytes the transfer sizes of the document and every resource.
With --press, the charts are focused and the keys pressed once the page is ready, and "cursor" says which point
the map's cursor is on afterwards (the tests drive the keyboard this way). With --eval, the JavaScript
expression's value (JSON-able) is "eval" (the tests read what the browser laid out this way: boxes, texts).
Written by hand because it is a page of glue: Debian has no CDP client for Python.
"""
import json
import os
import subprocess
import sys
import tempfile
import time


KEY_CODES = {'ArrowLeft': 37, 'ArrowRight': 39, 'Home': 36, 'End': 35, 'Escape': 27}


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith('-'):
        sys.exit(__doc__)
    url, timeout, chromium = args[0], 60.0, '/usr/bin/chromium'
    if '--timeout' in args:
        timeout = float(args[args.index('--timeout') + 1])
    if '--chromium' in args:
        chromium = args[args.index('--chromium') + 1]
    keys = args[args.index('--press') + 1].split(',') if '--press' in args else []
    expression = args[args.index('--eval') + 1] if '--eval' in args else None
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()
    profile = tempfile.mkdtemp(prefix='gpslog-page-time-')

    # Chromium reads commands on fd 3 and writes answers on fd 4 (close_fds would close them again after this
    # runs).
    def fds():
        os.dup2(to_browser_r, 3)
        os.dup2(from_browser_w, 4)
        os.set_inheritable(3, True)  # dup2 onto the same number keeps close-on-exec
        os.set_inheritable(4, True)

    browser = subprocess.Popen(
        [chromium, '--headless', '--no-sandbox', '--disable-gpu', '--remote-debugging-pipe',
         '--user-data-dir=' + profile, '--no-first-run', 'about:blank'],
        preexec_fn=fds, close_fds=False,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(to_browser_r)
    os.close(from_browser_w)
    out = os.fdopen(to_browser_w, 'wb', buffering=0)
    inp = os.fdopen(from_browser_r, 'rb', buffering=0)
    buffered = b''
    next_id = [0]

    def send(method, params=None, session=None):
        next_id[0] += 1
        message = {'id': next_id[0], 'method': method, 'params': params or {}}
        if session:
            message['sessionId'] = session
        out.write(json.dumps(message).encode() + b'\0')
        return wait_for(next_id[0])

    def wait_for(wanted):
        nonlocal buffered
        while True:
            while b'\0' in buffered:
                raw, buffered = buffered.split(b'\0', 1)
                message = json.loads(raw)
                if message.get('id') == wanted:
                    if 'error' in message:
                        raise RuntimeError(message['error'])
                    return message.get('result', {})
            chunk = inp.read(65536)
            if not chunk:
                raise RuntimeError('chromium closed the pipe')
            buffered += chunk

    try:
        target = send('Target.createTarget', {'url': 'about:blank'})['targetId']
        session = send('Target.attachToTarget', {'targetId': target, 'flatten': True})['sessionId']
        send('Page.enable', session=session)
        send('Page.navigate', {'url': url}, session=session)
        deadline = time.monotonic() + timeout
        probe = ('JSON.stringify({ready: document.body && document.body.dataset.ready, '
                 'error: document.body && document.body.dataset.error, '
                 'readyMs: document.body && Number(document.body.dataset.readyMs), '
                 'bytes: document.body && Number(document.body.dataset.bytes), '
                 'vertices: Number((document.getElementById("map") || {dataset: {}}).dataset.vertices), '
                 'chartPoints: Math.max(0, ...Array.from(document.querySelectorAll(".chart"), '
                 '(c) => Number(c.dataset.points) || 0))})')
        while True:
            result = send('Runtime.evaluate', {'expression': probe, 'returnByValue': True}, session=session)
            state = json.loads(result.get('result', {}).get('value') or '{}')
            if state.get('error'):
                sys.exit('page-time.py: the page failed: ' + state['error'])
            if state.get('ready') == 'true':
                state.pop('ready', None)
                state.pop('error', None)
                if keys:
                    send('Runtime.evaluate', {'expression': 'document.getElementById("charts").focus()'},
                         session=session)
                    for key in keys:
                        for kind in ('keyDown', 'keyUp'):
                            send('Input.dispatchKeyEvent', {'type': kind, 'key': key, 'code': key,
                                                            'windowsVirtualKeyCode': KEY_CODES[key]}, session=session)
                    cursor = send('Runtime.evaluate', {
                        'expression': 'document.getElementById("map").dataset.cursor || null',
                        'returnByValue': True}, session=session)
                    state['cursor'] = cursor.get('result', {}).get('value')
                if expression:
                    value = send('Runtime.evaluate', {'expression': expression, 'returnByValue': True},
                                 session=session)
                    state['eval'] = value.get('result', {}).get('value')
                print(json.dumps(state))
                return
            if time.monotonic() > deadline:
                sys.exit('page-time.py: not ready after %g s' % timeout)
            time.sleep(0.05)
    finally:
        browser.kill()
        browser.wait()
        subprocess.run(['rm', '-rf', profile])


if __name__ == '__main__':
    main()
