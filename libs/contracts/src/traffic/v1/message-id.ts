/**
 * TRAFFIC dedups ids across subjects, so the project namespace keeps one project's ids from making
 * another's event a duplicate; a project token has no `/`, so the first `/` ends it.
 */
export const trafficMessageId = (project: string, id: string): string => `${project}/${id}`;

/**
 * An id in another project's namespace can only pre-empt, or pass for, that project's message.
 * Bare ids, from producers older than namespaces, are accepted and share one window.
 */
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
