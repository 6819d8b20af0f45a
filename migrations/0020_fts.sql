-- Full-text search over turn contents, candidate facts and reasons.
-- The trigram tokenizer indexes every 3-character window, so Chinese (no spaces) is searchable,
-- and LIKE '%...%' queries of 3+ characters use the index too. External content: the text is
-- stored once, in its own table; triggers keep the index in sync.

CREATE VIRTUAL TABLE turns_fts USING fts5(
  user_message_content, agent_message_content,
  content = 'conversation_turns', content_rowid = 'seq', tokenize = 'trigram'
);
CREATE TRIGGER turns_fts_ai AFTER INSERT ON conversation_turns BEGIN
  INSERT INTO turns_fts(rowid, user_message_content, agent_message_content)
  VALUES (new.seq, new.user_message_content, new.agent_message_content);
END;
CREATE TRIGGER turns_fts_ad AFTER DELETE ON conversation_turns BEGIN
  INSERT INTO turns_fts(turns_fts, rowid, user_message_content, agent_message_content)
  VALUES ('delete', old.seq, old.user_message_content, old.agent_message_content);
END;
CREATE TRIGGER turns_fts_au AFTER UPDATE OF user_message_content, agent_message_content ON conversation_turns BEGIN
  INSERT INTO turns_fts(turns_fts, rowid, user_message_content, agent_message_content)
  VALUES ('delete', old.seq, old.user_message_content, old.agent_message_content);
  INSERT INTO turns_fts(rowid, user_message_content, agent_message_content)
  VALUES (new.seq, new.user_message_content, new.agent_message_content);
END;

CREATE VIRTUAL TABLE decisions_fts USING fts5(
  reason, candidate_fact,
  content = 'memory_gate_decisions', content_rowid = 'seq', tokenize = 'trigram'
);
CREATE TRIGGER decisions_fts_ai AFTER INSERT ON memory_gate_decisions BEGIN
  INSERT INTO decisions_fts(rowid, reason, candidate_fact) VALUES (new.seq, new.reason, new.candidate_fact);
END;
CREATE TRIGGER decisions_fts_ad AFTER DELETE ON memory_gate_decisions BEGIN
  INSERT INTO decisions_fts(decisions_fts, rowid, reason, candidate_fact)
  VALUES ('delete', old.seq, old.reason, old.candidate_fact);
END;
CREATE TRIGGER decisions_fts_au AFTER UPDATE OF reason, candidate_fact ON memory_gate_decisions BEGIN
  INSERT INTO decisions_fts(decisions_fts, rowid, reason, candidate_fact)
  VALUES ('delete', old.seq, old.reason, old.candidate_fact);
  INSERT INTO decisions_fts(rowid, reason, candidate_fact) VALUES (new.seq, new.reason, new.candidate_fact);
END;
