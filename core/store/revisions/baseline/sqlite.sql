CREATE TABLE schema_migrations (name text primary key, applied_at text);

CREATE TABLE documents (
    id text primary key,            
    title text not null default '',
    author text not null default '',
    kind text not null,             
    source text not null,           
    language text not null default 'en',
    parent_id text references documents(id),   
    text text not null,
    n_chars integer not null,
    n_tokens integer not null,
    sha256 text not null,
    metadata text not null default '{}',
    created_at text not null,
    updated_at text not null
);

CREATE INDEX documents_kind on documents(kind);

CREATE INDEX documents_parent on documents(parent_id);

CREATE TABLE passages (
    id integer primary key,
    document_id text not null references documents(id) on delete cascade,
    idx integer not null,           
    start integer not null,         
    end integer not null,
    text text not null,
    n_tokens integer not null,
    unique (document_id, idx)
);

CREATE TABLE runs (
    id text primary key,
    kind text not null,             
    name text not null default '',
    config text not null default '{}',
    status text not null default 'running',   
    started_at text not null,
    finished_at text,
    n_calls integer not null default 0,
    input_tokens integer not null default 0,
    output_tokens integer not null default 0,
    cost_usd real not null default 0,
    note text not null default ''
, pid integer, host text);

CREATE TABLE entities (
    id integer primary key,
    document_id text not null references documents(id) on delete cascade,
    name text not null,             
    aliases text not null default '[]',
    label text not null default '', 
    n_mentions integer not null,
    rank integer not null,          
    method text not null,           
    run_id text references runs(id),
    unique (document_id, name, method)
);

CREATE TABLE mentions (
    id integer primary key,
    entity_id integer not null references entities(id) on delete cascade,
    document_id text not null references documents(id) on delete cascade,
    start integer not null,
    end integer not null,
    surface text not null,
    passage_idx integer
);

CREATE INDEX mentions_entity on mentions(entity_id);

CREATE TABLE questions (
    id text primary key,
    document_id text references documents(id),        
    context_document_id text references documents(id), 
    context_kind text not null default 'story',         
    question text not null,
    answers text not null default '[]',                 
    origin text not null,           
    split text not null default '',
    qtype text not null default '',
    entity_id integer references entities(id),
    language text not null default 'en',
    parent_id text references questions(id),           
    status text not null default 'pending',             
    provenance text not null default '{}',
    metadata text not null default '{}',
    run_id text references runs(id),
    created_at text not null,
    updated_at text not null
);

CREATE INDEX questions_document on questions(document_id);

CREATE INDEX questions_origin on questions(origin);

CREATE TABLE systems (
    name text primary key,
    model text not null,            
    context text not null,          
    params text not null default '{}',
    prompt text not null default '',
    family text not null default '',
    description text not null default '',
    created_at text not null
);

CREATE TABLE answers (
    id integer primary key,
    question_id text not null references questions(id),
    system text not null references systems(name),
    text text not null default '',
    status text not null default 'ok',  
    error text not null default '',
    context_tokens integer not null default 0,
    input_tokens integer not null default 0,
    output_tokens integer not null default 0,
    cost_usd real not null default 0,
    cache_key text,
    run_id text references runs(id),
    metadata text not null default '{}',
    created_at text not null,
    unique (question_id, system)
);

CREATE TABLE judgments (
    id integer primary key,
    kind text not null,             
    question_id text not null references questions(id),
    rater text not null,            
    rater_kind text not null,       
    criterion text not null default '',  
    system text,                    
    answer_id integer references answers(id),
    system_a text,                  
    system_b text,                  
    answer_a_id integer references answers(id),
    answer_b_id integer references answers(id),
    order_shown text not null default '',  
    verdict text,                   
    status text not null default 'ok',     
    evidence text not null default '[]',   
    rationale text not null default '',
    raw text not null default '',
    prompt_hash text not null default '',
    context_kind text not null default '',
    run_id text references runs(id),
    supersedes integer references judgments(id),
    created_at text not null
);

CREATE INDEX judgments_question on judgments(question_id);

CREATE INDEX judgments_rater on judgments(rater);

CREATE INDEX judgments_kind on judgments(kind, rater);

CREATE TABLE reviews (
    id integer primary key,
    question_id text not null references questions(id),
    annotator text not null,
    decision text not null,         
    checklist text not null default '{}',
    edited_question text,
    edited_answer text,
    note text not null default '',
    supersedes integer references reviews(id),
    created_at text not null
);

CREATE INDEX reviews_question on reviews(question_id);

CREATE TABLE disputes (
    id integer primary key,
    question_id text not null references questions(id),
    answer_id integer not null references answers(id),
    system text not null,
    gt_judgment_id integer not null references judgments(id),
    ctx_judgment_id integer not null references judgments(id),
    gt_verdict text not null,
    ctx_verdict text not null,
    run_id text references runs(id),
    created_at text not null,
    unique (gt_judgment_id, ctx_judgment_id)
);

CREATE TABLE dispute_resolutions (
    id integer primary key,
    dispute_id integer not null references disputes(id),
    annotator text not null,
    resolution text not null,       
    corrected_answer text,
    note text not null default '',
    supersedes integer references dispute_resolutions(id),
    created_at text not null
);

CREATE TABLE settings (
    key text primary key,
    value text not null
);

CREATE TABLE llm_cache (
    key text primary key,
    model text not null,
    request text not null default '{}',
    response text not null,
    created_at text not null
);

CREATE TABLE llm_calls (
    id integer primary key,
    run_id text references runs(id),
    model text not null,
    provider text not null,
    task text not null default '',
    purpose text not null default '',
    tags text not null default '{}',
    system_name text generated always as (json_extract(tags, '$.system')) virtual,
    judge_name text generated always as (json_extract(tags, '$.judge')) virtual,
    cache_key text,
    cache_hit integer not null default 0,
    batch_id text,
    status text not null,            
    error_kind text,                 
    error text not null default '',
    attempts integer not null default 1,
    input_tokens integer not null default 0,
    output_tokens integer not null default 0,
    cached_tokens integer not null default 0,
    cache_write_tokens integer not null default 0,
    cost_usd real not null default 0,
    latency_s real not null default 0,
    finish_reason text not null default '',
    request_id text not null default '',
    created_at text not null
);

CREATE INDEX llm_calls_run on llm_calls(run_id);

CREATE INDEX llm_calls_model on llm_calls(model);

CREATE INDEX llm_calls_key on llm_calls(cache_key);

CREATE TABLE llm_batches (
    id text primary key,             
    provider text not null,
    model text not null,
    status text not null,            
    n_requests integer not null,
    n_imported integer not null default 0,
    n_failed integer not null default 0,
    run_id text references runs(id),
    metadata text not null default '{}',
    created_at text not null,
    updated_at text not null
);

CREATE TABLE llm_batch_items (
    batch_id text not null references llm_batches(id),
    custom_id text not null,
    cache_key text not null,
    request text not null,           
    status text not null default 'pending',   
    primary key (batch_id, custom_id)
);

CREATE TABLE generation_failures (
    id integer primary key,
    run_id text references runs(id),
    document_id text references documents(id) on delete cascade,
    entity_id integer references entities(id) on delete set null,
    model text not null,
    prompt_hash text not null default '',
    kind text not null,             
    error text not null default '',
    raw text not null default '',
    created_at text not null
);

CREATE INDEX generation_failures_document on generation_failures(document_id);

CREATE TABLE judges (
    name text primary key,
    kind text not null,             
    model text not null,            
    context text not null,          
    params text not null default '{}',
    prompt text not null default '',
    family text not null default '',
    description text not null default '',
    created_at text not null
);

CREATE TABLE experiments (
    name text primary key,
    path text not null default '',
    config text not null default '{}',
    question_ids text not null default '[]',
    status text not null default 'planned',   
    summary text not null default '{}',
    run_id text references runs(id),
    created_at text not null,
    updated_at text not null
);

CREATE INDEX answers_system on answers(system);

CREATE INDEX judgments_pair on judgments(question_id, rater, system_a, system_b);

CREATE INDEX judgments_answer on judgments(answer_id, rater);

CREATE INDEX judgments_supersedes on judgments(supersedes);

CREATE INDEX judgments_rater_kind on judgments(rater_kind, kind);

CREATE INDEX reviews_supersedes on reviews(supersedes);

CREATE INDEX dispute_resolutions_supersedes on dispute_resolutions(supersedes);

CREATE INDEX dispute_resolutions_dispute on dispute_resolutions(dispute_id);

CREATE TABLE article_pairs (
    id integer primary key,
    article_a text not null references documents(id),   
    article_b text not null references documents(id),
    shared_entities text not null default '[]',          
    days_apart integer not null,
    method text not null default 'title-entities',       
    related text,                                         
    status text not null default 'active',                
    provenance text not null default '{}',
    created_at text not null,
    unique (article_a, article_b)
);

CREATE TABLE xrag_article_notes (
    id integer primary key,
    article_id text not null references documents(id),
    kind text not null,                 
    question text not null default '',  
    answer text not null default '',    
    language text not null default 'en',
    provenance text not null default '{}',   
    created_at text not null
);

CREATE INDEX xrag_article_notes_article on xrag_article_notes(article_id, kind);

CREATE TABLE xrag_items (
    question_id text primary key references questions(id),   
    pair_id integer not null references article_pairs(id),
    qtype text not null,                
    sub_questions text not null default '[]',  
    builder text not null,              
    created_at text not null
);

CREATE INDEX xrag_items_pair on xrag_items(pair_id);

CREATE TABLE xrag_distractors (
    pair_id integer not null references article_pairs(id),
    language text not null,             
    rank integer not null,              
    document_id text not null references documents(id),
    english_id text not null references documents(id),  
    score real not null,
    primary key (pair_id, language, rank)
);

CREATE TABLE xrag_results (
    id integer primary key,
    question_id text not null references questions(id),  
    item_id text not null references questions(id),      
    language text not null,             
    setting text not null,              
    model text not null,
    qtype text not null default '',
    documents text not null default '[]',  
    answer text not null default '',
    answer_status text not null default 'ok',  
    response_language text,             
    language_ok integer,                
    votes text not null default '[]',   
    content_verdict text,               
    panel_status text not null,         
    verdict text,                       
    judge_panel text not null default '',
    run_id text references runs(id),
    created_at text not null,
    unique (question_id, setting, model, judge_panel)
);

CREATE INDEX xrag_results_setting on xrag_results(setting, language, model);

CREATE TABLE exam_banks (
    id text primary key,
    name text not null default '',
    source text not null,              
    path text not null default '',
    document_id text references documents(id),   
    n_queries integer not null default 0,
    n_questions integer not null default 0,
    metadata text not null default '{}',
    created_at text not null
);

CREATE TABLE exam_queries (
    bank_id text not null references exam_banks(id) on delete cascade,
    query_id text not null,
    query_text text not null default '',
    document_id text references documents(id),
    primary key (bank_id, query_id)
);

CREATE TABLE exam_questions (
    id text primary key,               
    bank_id text not null references exam_banks(id) on delete cascade,
    query_id text not null,
    qid text not null,                 
    question text not null,
    choices text,                      
    correct_key text,
    correct text,
    answers text not null default '[]',   
    facet_id text not null default '',
    source_question_id text references questions(id),
    line integer,
    metadata text not null default '{}',
    foreign key (bank_id, query_id) references exam_queries(bank_id, query_id)
);

CREATE INDEX exam_questions_query on exam_questions(bank_id, query_id);

CREATE TABLE exam_articles (
    id integer primary key,
    bank_id text not null references exam_banks(id) on delete cascade,
    query_id text not null,
    system text not null,              
    kind text not null,                
    text text not null,
    n_tokens integer not null default 0,
    metadata text not null default '{}',
    run_id text references runs(id),
    created_at text not null,
    unique (bank_id, query_id, system),
    foreign key (bank_id, query_id) references exam_queries(bank_id, query_id)
);

CREATE TABLE exam_runs (
    id text primary key references runs(id),
    bank_id text not null references exam_banks(id) on delete cascade,
    qa_model text not null,            
    verification text not null,        
    threshold real,                    
    config text not null default '{}',
    created_at text not null
);

CREATE TABLE exam_grades (
    id integer primary key,
    run_id text not null references exam_runs(id) on delete cascade,
    article_id integer not null references exam_articles(id) on delete cascade,
    question_id text not null references exam_questions(id) on delete cascade,
    answer text not null default '',
    self_rating integer,               
    score real,                        
    correct integer,                   
    status text not null default 'ok',      
    raw text not null default '',
    prompt_hash text not null default '',
    created_at text not null, rater text not null default '',
    unique (run_id, article_id, question_id)
);

CREATE INDEX exam_grades_run on exam_grades(run_id, article_id);

CREATE TABLE exam_book_correlations (
    id integer primary key,
    document_id text not null references documents(id) on delete cascade,
    exam_run_id text not null references exam_runs(id) on delete cascade,
    experiment text not null,          
    rater text not null,               
    n_systems integer not null,
    n_questions integer not null,
    spearman real,
    kendall real,
    spearman_ties real,                
    kendall_ties real,
    repeats integer,
    seed integer,
    n_judgments integer,               
    n_decisive integer,                
    bt_estimate text not null default '',   
    systems text not null default '[]',
    created_at text not null,
    unique (document_id, exam_run_id, rater)
);

CREATE TABLE accounts (
    id integer primary key,
    name text not null unique,
    role text not null,             
    token_id text not null unique,
    salt text not null,             
    token_hash text not null,       
    created_at text not null,
    revoked_at text
, token_used_at text, labels_excluded_at text, labels_excluded_by text);

CREATE TABLE adjudications (
    id integer primary key,
    task text not null,
    item_key text not null,
    label text not null,
    rationale text not null default '',
    adjudicator text not null,
    supersedes integer references adjudications(id),
    created_at text not null
);

CREATE INDEX adjudications_item on adjudications(task, item_key);

CREATE INDEX runs_status on runs(status);

CREATE INDEX runs_finished on runs(finished_at);

CREATE TABLE validation_items (
    id integer primary key,
    task text not null,
    item_key text not null,
    rater text not null,
    overlap integer not null check (overlap >= 1),
    requested_by text not null,
    created_at text not null,
    unique (task, item_key, rater)
);

CREATE INDEX validation_items_task on validation_items(task);

CREATE TABLE sessions (
    id integer primary key,
    id_hash text not null unique,   
    name text not null,             
    token_id text not null,         
    created_at text not null,
    revoked_at text
);

CREATE INDEX sessions_name on sessions(name);

CREATE TABLE gold_sources (
    id integer primary key,
    rater text not null,
    action text not null check (action in ('add', 'remove')),
    marked_by text not null,
    created_at text not null
);

CREATE INDEX gold_sources_rater on gold_sources(rater, id);

CREATE TABLE entity_edits (
    id integer primary key,
    document_id text not null,
    action text not null check (action in ('merge', 'split', 'rename', 'retype', 'drop', 'undo')),
    payload text not null default '{}',
    made_by text not null,
    created_at text not null,
    undoes integer references entity_edits(id)
);

CREATE INDEX entity_edits_document on entity_edits(document_id, id);

CREATE UNIQUE INDEX entity_edits_one_undo on entity_edits(undoes) where undoes is not null;

CREATE TABLE entity_bases (
    document_id text not null,
    method text not null,
    run_id text not null,
    entities text not null,
    created_at text not null,
    primary key (document_id, method, run_id)
);

CREATE INDEX judgments_summary on judgments(
    kind, status, rater, question_id, system_a, system_b, verdict, rater_kind
);

CREATE TABLE passage_stage (
    stage text not null,            
    document_id text not null,      
    idx integer not null,
    start integer not null,
    end integer not null,
    text text not null,
    n_tokens integer not null,
    primary key (stage, idx)
);

CREATE INDEX passage_stage_document on passage_stage(document_id);

CREATE TABLE row_stage (
    stage text not null,            
    seq integer not null,           
    target text not null,           
    row text not null,              
    primary key (stage, seq)
);

CREATE TABLE sign_in_failures (
    id integer primary key,
    client text not null,       
    failed_at real not null     
);

CREATE INDEX sign_in_failures_client on sign_in_failures(client, failed_at);

CREATE TABLE label_scales (
    task text primary key,
    scale text not null check (scale in ('categorical', 'ordinal', 'multilabel')),
    labels text not null default '[]',
    declared integer not null default 0,
    created_at text not null,
    updated_at text not null
);

CREATE TABLE custom_tasks (
    task text primary key references label_scales(task),
    guideline text not null default '',
    defined_by text not null default '',
    created_at text not null,
    updated_at text not null
);

CREATE TABLE custom_task_items (
    task text not null references custom_tasks(task),
    item text not null,
    question_id text not null references questions(id),
    system text,
    answer text not null default '',
    position integer not null,
    created_at text not null,
    primary key (task, item)
);

