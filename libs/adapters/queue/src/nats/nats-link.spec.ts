import { withoutCredentials } from './nats-link';

describe(withoutCredentials.name, () => {
  it.each([
    ['nats://user:password@nats:4222', 'nats://[redacted]@nats:4222'],
    ['tls://token@nats.example.com', 'tls://[redacted]@nats.example.com'],
    ['user:password@nats', '[redacted]@nats'],
    ['nats://nats:4222', 'nats://nats:4222'],
    ['127.0.0.1:4222', '127.0.0.1:4222'],
  ])('logs %s as %s', (server, logged) => {
    expect(withoutCredentials(server)).toBe(logged);
  });
});
