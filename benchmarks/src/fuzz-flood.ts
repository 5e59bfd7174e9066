/**
 * bench:fuzz's flooding session, run as a child process (`fuzz-flood.ts URL COUNT BYTES`):
 * it sends COUNT search_tools calls of about BYTES each and sends back their times. Apart,
 * building and sending 4 MB requests does not stall the measuring session's client, which
 * shares the gateway's thread: only the gateway's own work is measured, as a remote
 * client would see it.
 */
import { RawSession } from './raw-session.js';

const [url = '', count = 0, bytes = 0] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const session = new RawSession(url);
await session.open();
const phrase = 'take a screenshot ';
const body = phrase.repeat(Math.floor((bytes - 16) / phrase.length));
const times: number[] = [];
let chars = 0;
for (let i = 0; i < count; i++) {
  // A different query each time, as an attacker would send: no answer comes from the query cache.
  const query = `${i} ${body}`;
  chars = Math.max(chars, query.length);
  times.push(await session.search(query));
}
process.send?.({ times, chars });
