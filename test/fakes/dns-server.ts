import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import * as packet from 'dns-packet';

/**
 * A DNS server on loopback (UDP) answering TXT queries from a table the test edits: what a registrar's
 * DNS would serve. Names not in the table answer NXDOMAIN; `failing` makes it answer SERVFAIL.
 */
export interface FakeDns {
  /** `ip:port`, for DNS_RESOLVER. */
  address: string;
  txt: Map<string, string[]>;
  failing: boolean;
  queries: string[];
  close(): Promise<void>;
}

export async function startFakeDns(): Promise<FakeDns> {
  const socket = createSocket('udp4');
  const fake: FakeDns = {
    address: '',
    txt: new Map(),
    failing: false,
    queries: [],
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
  socket.on('message', (message, remote) => {
    const query = packet.decode(message);
    const question = query.questions?.[0];
    if (!question) return;
    fake.queries.push(`${question.type} ${question.name}`);
    const name = question.name.toLowerCase();
    const values = question.type === 'TXT' ? fake.txt.get(name) : undefined;
    const known = fake.txt.has(name);
    // The response code is the low four bits of the flags: 0 NOERROR, 2 SERVFAIL, 3 NXDOMAIN.
    const rcode = fake.failing ? 2 : known ? 0 : 3;
    const reply = packet.encode({
      id: query.id,
      type: 'response',
      flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE | packet.AUTHORITATIVE_ANSWER | rcode,
      questions: query.questions,
      answers:
        fake.failing || !values
          ? []
          : values.map((value) => ({ type: 'TXT' as const, name: question.name, ttl: 60, data: value })),
    });
    socket.send(reply, remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  fake.address = `127.0.0.1:${(socket.address() as AddressInfo).port}`;
  return fake;
}
