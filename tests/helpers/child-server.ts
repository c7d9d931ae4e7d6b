/**
 * What the IAM and gateway test helpers share: run a built Nitro server as a child process,
 * collect its output line by line, resolve with the port from its "Listening on" line, and stop it
 * (SIGTERM, SIGKILL after 5 s, then the caller's cleanup). The runner itself is
 * scripts/lib/run-server.ts, the one `npm start` and the benchmark use too.
 */
export { untilListening, type ListeningChild } from '../../scripts/lib/run-server.ts'
