// Loaded into every test process by scripts/run-tests.mjs. Once a file's tests are done and its 'exit' event has
// run, end the process at once: a natural exit first closes every handle and waits for every request libuv still
// holds, and twice an outage test's process spun there for 15–20 minutes after its tests had all passed
// (docs/development.md#a-test-process-that-does-not-exit). process.exit() inside 'exit' skips that wait.
process.on('exit', (code) => process.exit(code));
