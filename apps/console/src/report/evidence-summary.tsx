import { formatCount } from '../components/status';
import { percent, shareText } from './evidence';
import type { ReportSectionProps } from './section';

const TOP = 5;

/** How much of the previewed traffic the change touches, and where: shares, top ports and sources. */
export function EvidenceSummary({ configuration: c }: ReportSectionProps) {
  const ports = c.topChangedDestinationPorts.slice(0, TOP);
  const sources = c.topChangedSources.slice(0, TOP);
  return (
    <>
      <ul class="evidence">
        <li data-metric="changedShare">
          <strong>{shareText(c.changed, c.evaluated, 'events')}</strong> change verdict
          {c.flows !== undefined ? `, in ${formatCount(c.flows)} distinct flows` : ''}.
        </li>
        <li class="diff-denied" data-metric="allowToDenyShare">
          {shareText(c.allowToDeny, c.evaluated, 'events')} would be denied (allowed today).
        </li>
        <li class="diff-allowed" data-metric="denyToAllowShare">
          {shareText(c.denyToAllow, c.evaluated, 'events')} would be allowed (denied today).
        </li>
      </ul>
      {c.changed > 0 && (
        <div class="grid top-changed">
          <table class="striped">
            <caption>Top changed destination ports</caption>
            <thead>
              <tr>
                <th scope="col">Port</th>
                <th scope="col">Changed events</th>
              </tr>
            </thead>
            <tbody>
              {ports.map((p) => (
                <tr key={`${p.protocol}/${p.destPort}`}>
                  <td>
                    {p.protocol}/{p.destPort}
                  </td>
                  <td>
                    {formatCount(p.count)} ({percent(p.count, c.changed)})
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <table class="striped">
            <caption>Top changed sources</caption>
            <thead>
              <tr>
                <th scope="col">Source</th>
                <th scope="col">Changed events</th>
              </tr>
            </thead>
            <tbody>
              {sources.map((s) => (
                <tr key={s.srcIp}>
                  <td>{s.srcIp}</td>
                  <td>
                    {formatCount(s.count)} ({percent(s.count, c.changed)})
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
