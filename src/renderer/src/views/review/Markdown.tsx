// Markdown the team writes (review guidelines), rendered safely: marked only tokenizes, and every token
// becomes a React element, so raw HTML in the text shows as text and nothing reaches innerHTML.
// Links open only for http(s) and mailto; images are shown as their alt text.
import { Lexer, type Token, type Tokens } from 'marked';
import type { ReactNode } from 'react';

const SAFE_LINK = /^(https?:|mailto:)/i;

function inline(tokens: Token[] | undefined, key = ''): ReactNode[] {
  return (tokens ?? []).map((t, i) => renderToken(t, `${key}.${i}`));
}

function renderToken(t: Token, key: string): ReactNode {
  switch (t.type) {
    case 'heading': {
      const H = `h${Math.min(6, Math.max(3, (t as Tokens.Heading).depth + 2))}` as 'h3';
      return <H key={key}>{inline((t as Tokens.Heading).tokens, key)}</H>;
    }
    case 'paragraph':
      return <p key={key}>{inline((t as Tokens.Paragraph).tokens, key)}</p>;
    case 'text': {
      const tt = t as Tokens.Text;
      return tt.tokens ? <span key={key}>{inline(tt.tokens, key)}</span> : tt.text;
    }
    case 'strong':
      return <strong key={key}>{inline((t as Tokens.Strong).tokens, key)}</strong>;
    case 'em':
      return <em key={key}>{inline((t as Tokens.Em).tokens, key)}</em>;
    case 'del':
      return <del key={key}>{inline((t as Tokens.Del).tokens, key)}</del>;
    case 'codespan':
      return <code key={key}>{(t as Tokens.Codespan).text}</code>;
    case 'code':
      return (
        <pre key={key} className="mono small">
          <code>{(t as Tokens.Code).text}</code>
        </pre>
      );
    case 'blockquote':
      return <blockquote key={key}>{(t as Tokens.Blockquote).tokens.map((x, i) => renderToken(x, `${key}.${i}`))}</blockquote>;
    case 'list': {
      const l = t as Tokens.List;
      const items = l.items.map((it, i) => <li key={i}>{it.tokens.map((x, j) => renderToken(x, `${key}.${i}.${j}`))}</li>);
      return l.ordered ? <ol key={key}>{items}</ol> : <ul key={key}>{items}</ul>;
    }
    case 'link': {
      const l = t as Tokens.Link;
      const children = inline(l.tokens, key);
      return SAFE_LINK.test(l.href) ? (
        <a key={key} href={l.href} target="_blank" rel="noreferrer noopener">
          {children}
        </a>
      ) : (
        <span key={key}>{children}</span>
      );
    }
    case 'image':
      return (
        <span key={key} className="muted">
          [{(t as Tokens.Image).text}]
        </span>
      );
    case 'hr':
      return <hr key={key} />;
    case 'br':
      return <br key={key} />;
    case 'space':
      return null;
    case 'table': {
      const tb = t as Tokens.Table;
      return (
        <table key={key}>
          <thead>
            <tr>
              {tb.header.map((c, i) => (
                <th key={i}>{inline(c.tokens, `${key}.h${i}`)}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {tb.rows.map((r, i) => (
              <tr key={i}>
                {r.map((c, j) => (
                  <td key={j}>{inline(c.tokens, `${key}.${i}.${j}`)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      );
    }
    default:
      // html, escape and anything unknown: their source, as text
      return 'text' in t && typeof t.text === 'string' ? t.text : (t.raw ?? '');
  }
}

export function Markdown({ text, testId }: { text: string; testId?: string }) {
  const tokens = new Lexer({ gfm: true }).lex(text);
  return (
    <div className="markdown" data-testid={testId}>
      {tokens.map((t, i) => renderToken(t, String(i)))}
    </div>
  );
}
