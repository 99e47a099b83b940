/** Test runs sharing a NATS server use one each: JetStream refuses two streams over the same subjects. */
export class NatsNamespace {
  constructor(readonly prefix?: string) {}

  subject(subject: string): string {
    return this.prefix ? `${this.prefix}.${subject}` : subject;
  }

  stream(name: string): string {
    return this.prefix ? `${this.prefix.replace(/[^A-Za-z0-9_-]/g, '_')}_${name}` : name;
  }

  bucket(name: string): string {
    return this.stream(name);
  }
}
