/** Namespaced, as TRAFFIC dedups ids across subjects; the first `/` ends the project token. */
export const trafficMessageId = (project: string, id: string): string => `${project}/${id}`;

/** Another project's namespace can only pre-empt that project's message; bare ids are accepted. */
export function foreignTrafficMessageId(
  subjectProject: string,
  messageId: string | undefined,
): string | undefined {
  if (messageId === undefined) return undefined;
  const slash = messageId.indexOf('/');
  if (slash < 0) return undefined;
  const namespace = messageId.slice(0, slash);
  if (namespace === subjectProject) return undefined;
  return `Nats-Msg-Id "${messageId}" is in project "${namespace}"'s namespace, not "${subjectProject}"'s (the subject's): use "${trafficMessageId(subjectProject, '<id>')}"`;
}
