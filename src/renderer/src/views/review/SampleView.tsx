// One sample as the curator judges it: the conversation, the decision and fact, with PII highlighted
// in place. Texts come from the sample content by field path, the same paths the PII spans carry.
import type { ReactNode } from 'react';
import type { PiiSpanDto, SampleDetail } from '../../../../shared/contract';
import { Chip } from '../../components/Chip';
import { PiiText } from '../../components/PiiText';
import { humanizePath, textAt, textFields } from './sampleFields';

interface ViewFieldProps {
  sample: SampleDetail;
  path: string;
  selectedKey?: string;
  onToggle: (span: PiiSpanDto) => void;
}

function spansFor(sample: SampleDetail, path: string): PiiSpanDto[] {
  return sample.piiSpans.filter((s) => (s.field ?? '') === path);
}

function FieldText({ sample, path, selectedKey, onToggle }: ViewFieldProps) {
  const text = textAt(sample.content, path);
  if (text == null) return null;
  return <PiiText text={text} spans={spansFor(sample, path)} selectedKey={selectedKey} onToggle={onToggle} />;
}

function Msg({ role, children }: { role: string; children: ReactNode }) {
  const r = role === 'user' ? 'user' : 'agent';
  return (
    <div className={`msg msg-${r}`}>
      <div className="msg-role">{r}</div>
      <div className="prewrap">{children}</div>
    </div>
  );
}

function Conversation({ base, ...p }: Omit<ViewFieldProps, 'path'> & { base: string }) {
  const list = textFields(p.sample.content).filter((f) => f.path.startsWith(`${base}.`) && f.path.endsWith('.message'));
  if (list.length === 0) return null;
  return (
    <div data-testid="sample-conversation">
      {list.map((f) => {
        const role = textAt(p.sample.content, f.path.replace(/\.message$/, '.role')) ?? 'user';
        return (
          <Msg key={f.path} role={role}>
            <FieldText {...p} path={f.path} />
          </Msg>
        );
      })}
    </div>
  );
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt>{label}</dt>
      <dd className="prewrap">{children}</dd>
    </>
  );
}

/** Collapsed sections open by themselves when they hold a detected PII value, so no highlight is hidden. */
function hasPiiUnder(sample: SampleDetail, base: string): boolean {
  return sample.piiSpans.some((s) => s.field === base || (s.field ?? '').startsWith(`${base}.`));
}

function piiNote(sample: SampleDetail, base: string): string {
  const n = sample.piiSpans.filter((s) => s.field === base || (s.field ?? '').startsWith(`${base}.`)).length;
  return n ? ` · ${n} PII highlight${n === 1 ? '' : 's'}` : '';
}

export function SampleView({
  sample,
  selectedKey,
  onToggle,
}: {
  sample: SampleDetail;
  selectedKey?: string;
  onToggle: (span: PiiSpanDto) => void;
}) {
  const c = (sample.content ?? {}) as Record<string, unknown>;
  const p = { sample, selectedKey, onToggle };
  // The fields this layout shows; a PII span anywhere else is listed below it, so none is hidden.
  const shown = new Set<string>();
  let conversationBase: string | null = null;
  const f = (path: string) => {
    if (textAt(c, path) == null) return null;
    shown.add(path);
    return <FieldText {...p} path={path} />;
  };
  const type = typeof c.type === 'string' ? c.type : sample.sampleType;
  let body: ReactNode;
  if (type === 'memory_gate_positive' || type === 'memory_gate_negative') {
    conversationBase = 'conversation';
    body = (
      <>
        <h3>Conversation</h3>
        <Conversation {...p} base="conversation" />
        <h3>Decision</h3>
        <dl className="kv">
          {type === 'memory_gate_negative' && (
            <>
              <Row label="Gate said">
                {typeof c.incorrectDecision === 'string' && <Chip value={c.incorrectDecision} />} {f('incorrectFact')}
              </Row>
              <Row label="Should be">
                {typeof c.correctDecision === 'string' && <Chip value={c.correctDecision} />} {f('correctFact')}
              </Row>
              <Row label="Why">{f('rejectionReason')}</Row>
            </>
          )}
          {type === 'memory_gate_positive' && (
            <>
              <Row label="Decision">{typeof c.correctDecision === 'string' && <Chip value={c.correctDecision} />}</Row>
              <Row label="Fact">{f('correctFact')}</Row>
              <Row label="Reason">{f('reason')}</Row>
            </>
          )}
        </dl>
      </>
    );
  } else if (type === 'write_guardian_decision') {
    body = (
      <>
        <dl className="kv">
          <Row label="Decision">
            {typeof c.decision === 'string' && <Chip value={c.decision} />} <span className="mono">{String(c.targetFile ?? '')}</span>
          </Row>
          <Row label="Fact">{f('candidateFact')}</Row>
          {textAt(c, 'reason') != null && <Row label="Reason">{f('reason')}</Row>}
          {textAt(c, 'userCorrection.reason') != null && (
            <Row label="Correction">
              {f('userCorrection.correctedDecision')} — {f('userCorrection.reason')}
            </Row>
          )}
        </dl>
        <details open={hasPiiUnder(sample, 'currentFileContent')} key={`file-${sample.id}`}>
          <summary>File content the guardian saw{piiNote(sample, 'currentFileContent')}</summary>
          <div className="msg msg-agent prewrap mono">{f('currentFileContent')}</div>
        </details>
      </>
    );
  } else if (type === 'annotated_turn') {
    conversationBase = 'context';
    body = (
      <>
        <details open={hasPiiUnder(sample, 'context')} key={`context-${sample.id}`}>
          <summary>Context window{piiNote(sample, 'context')}</summary>
          <Conversation {...p} base="context" />
        </details>
        <h3>Conversation</h3>
        <Msg role="user">{f('memoryGate.input.currentUserMessage')}</Msg>
        <Msg role="agent">{f('memoryGate.input.currentAgentReply')}</Msg>
        <h3>Decision</h3>
        <dl className="kv">
          <Row label="Gate">
            {textAt(c, 'memoryGate.output.decision') && <Chip value={textAt(c, 'memoryGate.output.decision')!} />}{' '}
            {f('memoryGate.output.candidateFact')}
          </Row>
          <Row label="Reason">{f('memoryGate.output.reason')}</Row>
          <Row label="Label">{String(textAt(c, 'memoryGate.label') ?? '')}</Row>
          <Row label="Guardian">
            {textAt(c, 'writeGuardian.output.status') && <Chip value={textAt(c, 'writeGuardian.output.status')!} />}{' '}
            {f('writeGuardian.input.targetFile')}
          </Row>
        </dl>
      </>
    );
  } else {
    for (const x of textFields(c)) shown.add(x.path);
    body = (
      <dl className="kv">
        {textFields(c).map((x) => (
          <Row key={x.path} label={humanizePath(x.path)}>
            <FieldText {...p} path={x.path} />
          </Row>
        ))}
      </dl>
    );
  }
  return (
    <div className="stack" data-testid="review-sample" data-sample-id={sample.id} data-status={sample.annotationStatus}>
      <div className="row-flex">
        <Chip value={sample.sampleType} kind="pending" />
        <Chip value={sample.annotationStatus} />
        {sample.containsPii && <Chip value="contains PII" kind="needs-review" />}
        <span className="muted small mono">{sample.id}</span>
      </div>
      {body}
      <OtherPiiFields {...p} shown={shown} conversationBase={conversationBase} />
    </div>
  );
}

function OtherPiiFields({
  shown,
  conversationBase,
  ...p
}: Omit<ViewFieldProps, 'path'> & { shown: Set<string>; conversationBase: string | null }) {
  const isShown = (field: string) =>
    shown.has(field) || (conversationBase != null && field.startsWith(`${conversationBase}.`) && field.endsWith('.message'));
  const fields = [...new Set(p.sample.piiSpans.map((s) => s.field ?? ''))].filter(
    (field) => !isShown(field) && textAt(p.sample.content, field) != null,
  );
  if (!fields.length) return null;
  return (
    <>
      <h3>Other fields with detected PII</h3>
      <dl className="kv" data-testid="other-pii-fields">
        {fields.map((field) => (
          <Row key={field} label={humanizePath(field)}>
            <div className="prewrap mono small">
              <FieldText {...p} path={field} />
            </div>
          </Row>
        ))}
      </dl>
    </>
  );
}
