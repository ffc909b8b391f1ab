--
-- PostgreSQL database dump
--

\restrict 6eackgy8x9Gtf3OfhrJ21w3cFuAUxrbewYfD3uxeD91N1GfeyQZfYHoiMofQdNd

-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: api_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.api_keys (
    id character varying(16) NOT NULL,
    digest character varying(64) NOT NULL,
    role character varying(16) NOT NULL,
    course_id character varying(64),
    label character varying(200) NOT NULL,
    created_at timestamp with time zone NOT NULL,
    revoked boolean NOT NULL
);


--
-- Name: assignments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.assignments (
    id integer NOT NULL,
    course_id character varying(64) NOT NULL,
    assignment_id character varying(200) NOT NULL,
    version integer NOT NULL,
    document json NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: assignments_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.assignments_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: assignments_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.assignments_id_seq OWNED BY public.assignments.id;


--
-- Name: courses; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.courses (
    id character varying(64) NOT NULL,
    name character varying(200) NOT NULL,
    webhook_secret character varying(128) NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: grade_records; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.grade_records (
    id integer NOT NULL,
    submission_id character varying(36) NOT NULL,
    kind character varying(16) NOT NULL,
    created_at timestamp with time zone NOT NULL,
    score double precision NOT NULL,
    max_score double precision NOT NULL,
    results json NOT NULL,
    versions json NOT NULL
);


--
-- Name: grade_records_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.grade_records_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: grade_records_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.grade_records_id_seq OWNED BY public.grade_records.id;


--
-- Name: idempotency_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.idempotency_keys (
    id integer NOT NULL,
    course_id character varying(64) NOT NULL,
    key character varying(255) NOT NULL,
    request_sha256 character varying(64) NOT NULL,
    submission_id character varying(36) NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: idempotency_keys_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.idempotency_keys_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: idempotency_keys_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.idempotency_keys_id_seq OWNED BY public.idempotency_keys.id;


--
-- Name: regrades; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.regrades (
    id character varying(36) NOT NULL,
    course_id character varying(64) NOT NULL,
    assignment_id character varying(200) NOT NULL,
    dry_run boolean NOT NULL,
    status character varying(16) NOT NULL,
    created_at timestamp with time zone NOT NULL,
    finished_at timestamp with time zone,
    report json
);


--
-- Name: rubrics; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.rubrics (
    id integer NOT NULL,
    course_id character varying(64) NOT NULL,
    rubric_id character varying(200) NOT NULL,
    version integer NOT NULL,
    document json NOT NULL,
    source text NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: rubrics_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.rubrics_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: rubrics_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.rubrics_id_seq OWNED BY public.rubrics.id;


--
-- Name: submissions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submissions (
    id character varying(36) NOT NULL,
    course_id character varying(64) NOT NULL,
    assignment_id character varying(200) NOT NULL,
    assignment_version integer NOT NULL,
    learner_id character varying(200) NOT NULL,
    responses json NOT NULL,
    content_sha256 character varying(64) NOT NULL,
    status character varying(16) NOT NULL,
    received_at timestamp with time zone NOT NULL,
    queued_at timestamp with time zone NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    attempts integer NOT NULL,
    score double precision,
    max_score double precision,
    results json,
    failure_reason text,
    callback_url text,
    idempotency_key character varying(255)
);


--
-- Name: webhook_deliveries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_deliveries (
    id character varying(36) NOT NULL,
    course_id character varying(64) NOT NULL,
    submission_id character varying(36) NOT NULL,
    event character varying(64) NOT NULL,
    url text NOT NULL,
    payload json NOT NULL,
    status character varying(16) NOT NULL,
    attempts integer NOT NULL,
    created_at timestamp with time zone NOT NULL,
    next_attempt_at timestamp with time zone NOT NULL,
    give_up_at timestamp with time zone NOT NULL,
    last_status_code integer,
    last_error text,
    delivered_at timestamp with time zone
);


--
-- Name: assignments id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.assignments ALTER COLUMN id SET DEFAULT nextval('public.assignments_id_seq'::regclass);


--
-- Name: grade_records id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.grade_records ALTER COLUMN id SET DEFAULT nextval('public.grade_records_id_seq'::regclass);


--
-- Name: idempotency_keys id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.idempotency_keys ALTER COLUMN id SET DEFAULT nextval('public.idempotency_keys_id_seq'::regclass);


--
-- Name: rubrics id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rubrics ALTER COLUMN id SET DEFAULT nextval('public.rubrics_id_seq'::regclass);


--
-- Data for Name: api_keys; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.api_keys VALUES ('f0d2a5099b16', '2f44c1be9ac1bc709bffebcae48df49c8e5b2577e04c7031270a14b43377a5a3', 'instructor', 'local', 'created on first start', '2026-11-30 13:17:11.494847+00', false);
INSERT INTO public.api_keys VALUES ('6de139a3a23f', 'ce184332a9034bb4d16c7fd7a0b4764b29580d819204f3a45f64d298ea273f46', 'admin', NULL, 'fixture admin', '2026-11-30 13:17:11.501605+00', false);
INSERT INTO public.api_keys VALUES ('886da4bc3e62', '22366caa60afb66a5f60d8e6c39af847d8c9a457d22fb2ce6f92bce68072619a', 'lms', 'cs401', 'moodle', '2026-11-30 13:17:11.512384+00', false);
INSERT INTO public.api_keys VALUES ('2c7f450a1e95', 'c4f39318d3a4604c05b651af666e039b259846ef8e702192af9ab8750e17c9c6', 'instructor', 'cs401', '', '2026-11-30 13:17:11.51426+00', true);


--
-- Data for Name: assignments; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.assignments VALUES (1, 'local', 'hw-heads', 1, '{"id": "hw-heads", "title": "Heads", "description": "", "due_at": "2030-01-01T00:00:00+00:00", "callback_url": null, "items": [{"id": "why-heads", "kind": "text", "points": 4, "rubric": {"id": "heads-why", "question": "Why split attention into several heads?", "max_points": 3, "criteria": [{"id": "patterns", "description": "each head forms its own attention pattern", "points": 1, "concepts": ["different|several|multiple pattern*|relationship*"], "feedback": {"met": "Yes: several patterns at once.", "missed": "Say what several heads buy you."}}, {"id": "subspaces", "description": "heads work in different subspaces", "points": 1, "concepts": ["subspace*"], "feedback": {"met": "Yes: subspaces.", "missed": "Mention the subspaces."}}, {"id": "concatenated", "description": "outputs are concatenated", "points": 1, "concepts": ["concatenat*"], "feedback": {"met": "Yes.", "missed": "How?"}}], "version": 2}}, {"id": "pick", "kind": "choice", "points": 1, "prompt": "Pick A", "options": {"A": "yes", "B": "no"}, "answer": "A", "explanation": "A is the key."}]}', '2026-11-30 13:17:11.531572+00');
INSERT INTO public.assignments VALUES (2, 'local', 'hw-heads', 2, '{"id": "hw-heads", "title": "Heads, version 2", "description": "", "due_at": "2030-01-01T00:00:00+00:00", "callback_url": null, "items": [{"id": "why-heads", "kind": "text", "points": 4, "rubric": {"id": "heads-why", "question": "Why split attention into several heads?", "max_points": 3, "criteria": [{"id": "patterns", "description": "each head forms its own attention pattern", "points": 1, "concepts": ["different|several|multiple pattern*|relationship*"], "feedback": {"met": "Yes: several patterns at once.", "missed": "Say what several heads buy you."}}, {"id": "subspaces", "description": "heads work in different subspaces", "points": 1, "concepts": ["subspace*"], "feedback": {"met": "Yes: subspaces.", "missed": "Mention the subspaces."}}, {"id": "concatenated", "description": "outputs are concatenated", "points": 1, "concepts": ["concatenat*"], "feedback": {"met": "Yes.", "missed": "How?"}}], "version": 2}}, {"id": "pick", "kind": "choice", "points": 1, "prompt": "Pick A", "options": {"A": "yes", "B": "no"}, "answer": "A", "explanation": "A is the key."}]}', '2026-11-30 13:17:11.536566+00');


--
-- Data for Name: courses; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.courses VALUES ('local', 'Local course', 'b1ff0d1a3a484742ed25308de45d50f4c4fe9776503899e6359e8051c498a691', '2026-11-30 13:17:11.493615+00');
INSERT INTO public.courses VALUES ('cs401', 'CS 401', '5076543dd91345f060529b88b5ab6b9540e8c56aefa7b87f21fad960fd74ac35', '2026-11-30 13:17:11.50892+00');


--
-- Data for Name: grade_records; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.grade_records VALUES (1, '24259527-4062-4336-9691-7e6bae841999', 'initial', '2026-11-30 13:17:11.606385+00', 1, 16, '[{"item_id": "sdpa", "kind": "code", "score": 0.0, "max_score": 10.0, "tests": [{"name": "Response submitted", "score": 0.0, "max_score": 10.0, "status": "failed", "output": "No response was submitted for this item, so it scores 0.", "visibility": "visible", "tags": ["missing"], "number": null, "output_format": "text", "extra_data": {}}], "output": "No response was submitted for this item, so it scores 0.", "status": "graded", "extra_data": {}}, {"item_id": "quadratic-cost", "kind": "text", "score": 0.0, "max_score": 5.0, "tests": [{"name": "Response submitted", "score": 0.0, "max_score": 5.0, "status": "failed", "output": "No response was submitted for this item, so it scores 0.", "visibility": "visible", "tags": ["missing"], "number": null, "output_format": "text", "extra_data": {}}], "output": "No response was submitted for this item, so it scores 0.", "status": "graded", "extra_data": {}}, {"item_id": "no-positions", "kind": "choice", "score": 1.0, "max_score": 1.0, "tests": [{"name": "Selected option", "score": 1.0, "max_score": 1.0, "status": "passed", "output": "Correct: B. Self-attention is permutation-invariant: the computation treats every position symmetrically, so shuffling the input tokens produces the same output (just rearranged). The sentences ''the cat chased the dog'' and ''the dog chased the cat'' would produce identical representations after self-attention without positional encodings. Positional encodings inject sequence-order information into the token embeddings before attention operates.", "visibility": "visible", "tags": ["choice"], "number": null, "output_format": "text", "extra_data": {"chosen": "B"}}], "output": "", "status": "graded", "extra_data": {"chosen": "B", "correct": true, "execution_time": 0.0}}]', '{"assignment": 0, "items": {"sdpa": {}, "quadratic-cost": {}, "no-positions": {}}}');
INSERT INTO public.grade_records VALUES (2, '623ffcfe-2d9f-4a6c-8219-2f9cb6322814', 'initial', '2026-11-30 13:17:11.64038+00', 0, 16, '[{"item_id": "sdpa", "kind": "code", "score": 0.0, "max_score": 10.0, "tests": [{"name": "Response submitted", "score": 0.0, "max_score": 10.0, "status": "failed", "output": "No response was submitted for this item, so it scores 0.", "visibility": "visible", "tags": ["missing"], "number": null, "output_format": "text", "extra_data": {}}], "output": "No response was submitted for this item, so it scores 0.", "status": "graded", "extra_data": {}}, {"item_id": "quadratic-cost", "kind": "text", "score": 0.0, "max_score": 5.0, "tests": [{"name": "Response submitted", "score": 0.0, "max_score": 5.0, "status": "failed", "output": "No response was submitted for this item, so it scores 0.", "visibility": "visible", "tags": ["missing"], "number": null, "output_format": "text", "extra_data": {}}], "output": "No response was submitted for this item, so it scores 0.", "status": "graded", "extra_data": {}}, {"item_id": "no-positions", "kind": "choice", "score": 0.0, "max_score": 1.0, "tests": [{"name": "Selected option", "score": 0.0, "max_score": 1.0, "status": "failed", "output": "Incorrect: you chose A; the answer is B. Self-attention is permutation-invariant: the computation treats every position symmetrically, so shuffling the input tokens produces the same output (just rearranged). The sentences ''the cat chased the dog'' and ''the dog chased the cat'' would produce identical representations after self-attention without positional encodings. Positional encodings inject sequence-order information into the token embeddings before attention operates.", "visibility": "visible", "tags": ["choice"], "number": null, "output_format": "text", "extra_data": {"chosen": "A"}}], "output": "", "status": "graded", "extra_data": {"chosen": "A", "correct": false, "execution_time": 0.0}}]', '{"assignment": 0, "items": {"sdpa": {}, "quadratic-cost": {}, "no-positions": {}}}');
INSERT INTO public.grade_records VALUES (3, '34860635-4008-4d09-a9aa-fe8560fb269f', 'initial', '2026-11-30 13:17:11.651169+00', 2.6667, 5, '[{"item_id": "why-heads", "kind": "text", "score": 2.6667, "max_score": 4.0, "tests": [{"name": "each head forms its own attention pattern", "score": 1.3333, "max_score": 1.3333, "status": "passed", "output": "Yes: several patterns at once.", "visibility": "visible", "tags": ["criterion", "criterion:patterns"], "number": null, "output_format": "text", "extra_data": {"evidence": [[0, 18]]}}, {"name": "heads work in different subspaces", "score": 1.3333, "max_score": 1.3333, "status": "passed", "output": "Yes: subspaces.", "visibility": "visible", "tags": ["criterion", "criterion:subspaces"], "number": null, "output_format": "text", "extra_data": {"evidence": [[32, 41]]}}, {"name": "outputs are concatenated", "score": 0.0, "max_score": 1.3334, "status": "failed", "output": "How?", "visibility": "visible", "tags": ["criterion", "criterion:concatenated"], "number": null, "output_format": "text", "extra_data": {"evidence": []}}, {"name": "Adjustment to the item score", "score": 0.0001, "max_score": 0.0, "status": "passed", "output": "Adjusted so the tests add up to the rubric''s score.", "visibility": "visible", "tags": ["adjustment"], "number": null, "output_format": "text", "extra_data": {}}], "output": "", "status": "graded", "extra_data": {"rubric_id": "heads-why", "rubric_version": 2, "rubric_points": 2.0, "rubric_max_points": 3.0, "evidence": {"patterns": [[0, 18]], "subspaces": [[32, 41]], "concatenated": []}, "misconceptions": {}, "execution_time": 0.0005}}, {"item_id": "pick", "kind": "choice", "score": 0.0, "max_score": 1.0, "tests": [{"name": "Selected option", "score": 0.0, "max_score": 1.0, "status": "failed", "output": "Incorrect: you chose B; the answer is A. A is the key.", "visibility": "visible", "tags": ["choice"], "number": null, "output_format": "text", "extra_data": {"chosen": "B"}}], "output": "", "status": "graded", "extra_data": {"chosen": "B", "correct": false, "execution_time": 0.0}}]', '{"assignment": 2, "items": {"why-heads": {"rubric_id": "heads-why", "rubric_version": 2}, "pick": {}}}');
INSERT INTO public.grade_records VALUES (4, '21ee403d-8e77-47f2-88fe-303e33d6d82d', 'initial', '2026-11-30 13:17:11.653435+00', 1, 16, '[{"item_id": "sdpa", "kind": "code", "score": 0.0, "max_score": 10.0, "tests": [{"name": "Response submitted", "score": 0.0, "max_score": 10.0, "status": "failed", "output": "No response was submitted for this item, so it scores 0.", "visibility": "visible", "tags": ["missing"], "number": null, "output_format": "text", "extra_data": {}}], "output": "No response was submitted for this item, so it scores 0.", "status": "graded", "extra_data": {}}, {"item_id": "quadratic-cost", "kind": "text", "score": 0.0, "max_score": 5.0, "tests": [{"name": "Response submitted", "score": 0.0, "max_score": 5.0, "status": "failed", "output": "No response was submitted for this item, so it scores 0.", "visibility": "visible", "tags": ["missing"], "number": null, "output_format": "text", "extra_data": {}}], "output": "No response was submitted for this item, so it scores 0.", "status": "graded", "extra_data": {}}, {"item_id": "no-positions", "kind": "choice", "score": 1.0, "max_score": 1.0, "tests": [{"name": "Selected option", "score": 1.0, "max_score": 1.0, "status": "passed", "output": "Correct: B. Self-attention is permutation-invariant: the computation treats every position symmetrically, so shuffling the input tokens produces the same output (just rearranged). The sentences ''the cat chased the dog'' and ''the dog chased the cat'' would produce identical representations after self-attention without positional encodings. Positional encodings inject sequence-order information into the token embeddings before attention operates.", "visibility": "visible", "tags": ["choice"], "number": null, "output_format": "text", "extra_data": {"chosen": "B"}}], "output": "", "status": "graded", "extra_data": {"chosen": "B", "correct": true, "execution_time": 0.0}}]', '{"assignment": 0, "items": {"sdpa": {}, "quadratic-cost": {}, "no-positions": {}}}');
INSERT INTO public.grade_records VALUES (5, '4575fb9c-4720-4c52-a284-f9f71d5025f0', 'initial', '2026-11-30 13:17:11.918246+00', 16, 16, '[{"item_id": "sdpa", "kind": "code", "score": 10.0, "max_score": 10.0, "tests": [{"name": "example: cross-attention, Lq=2, Lk=3, d_k=4, d_v=2, no mask", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "visible", "tags": ["scaling", "visible"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "example: causal mask, L=3, d_k=1", "score": 0.3333, "max_score": 0.3333, "status": "passed", "output": "Passed.", "visibility": "visible", "tags": ["masking", "visible"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "example: batch of 2, Lq=2, Lk=3, d_k=1, d_v=2", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "visible", "tags": ["softmax", "visible"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "shapes: batch axis, Lq != Lk, d_v != d_k", "score": 0.3333, "max_score": 0.3333, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["shapes", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "shapes: batch and heads axes (B, H, Lq, Lk)", "score": 0.3333, "max_score": 0.3333, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["shapes", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "shapes: no batch axis", "score": 0.3333, "max_score": 0.3333, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["shapes", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "scaling: batched cross-attention with a large d_k", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["scaling", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "scaling: heads axis with an odd d_k", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["scaling", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "scaling: no batch axis, d_k a perfect square", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["scaling", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "softmax: weights normalised over the key axis (batch, Lq != Lk)", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["softmax", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "softmax: rows sum to 1 with batch and heads axes", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["softmax", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "values: identical keys give the mean of the values", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["values", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "values: a dominant key selects its value vector", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["values", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "masking: causal mask (L, L) with a batch axis", "score": 0.3333, "max_score": 0.3333, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["masking", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "masking: key-padding mask (B, 1, 1, Lk) with heads", "score": 0.3333, "max_score": 0.3333, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["masking", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "masking: per-example mask (B, Lq, Lk), Lq != Lk", "score": 0.3333, "max_score": 0.3333, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["masking", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "masking: mask (B, 1, Lq, Lk) shared by the heads", "score": 0.3333, "max_score": 0.3333, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["masking", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "masking: rows with every key blocked are left out", "score": 0.3333, "max_score": 0.3333, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["masking", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "stability: logits in the thousands (float64)", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["stability", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "stability: logits in the hundreds (float32)", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["stability", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "properties: permutation equivariance", "score": 0.1667, "max_score": 0.1667, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["properties", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "properties: a sequence of length 1 returns v_1", "score": 0.1667, "max_score": 0.1667, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["properties", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "properties: one dominant score gives a one-hot weight row", "score": 0.1667, "max_score": 0.1667, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["properties", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "dtypes: float32 inputs", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["dtypes", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "inputs: Q, K, V and mask are not modified in place", "score": 0.5002, "max_score": 0.5002, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["inputs", "hidden"], "number": null, "output_format": "text", "extra_data": {}}], "output": "22 hidden tests ran; they are worth 8.67 of the 10 points and count towards your score. The 3 visible examples are worth the other 1.33 points. You scored 10 of 10 (passed 25 of 25 tests).", "status": "graded", "extra_data": {"problem": "scaled_dot_product_attention", "sandbox_seconds": 0.0229, "grading_seconds": 0.3235, "diagnoses": [], "execution_time": 0.3235}}, {"item_id": "quadratic-cost", "kind": "text", "score": 5.0, "max_score": 5.0, "tests": [{"name": "a score is computed between every pair of positions (an n x n score matrix)", "score": 2.0, "max_score": 2.0, "status": "passed", "output": "Right: every position is scored against every position, so there are n x n scores.", "visibility": "visible", "tags": ["criterion", "criterion:all-pairs"], "number": null, "output_format": "text", "extra_data": {"evidence": [[50, 60]]}}, {"name": "memory and compute grow quadratically with sequence length", "score": 1.0, "max_score": 1.0, "status": "passed", "output": "Right: both the attention matrix''s memory and the compute to fill it grow quadratically in n.", "visibility": "visible", "tags": ["criterion", "criterion:quadratic-growth"], "number": null, "output_format": "text", "extra_data": {"evidence": [[334, 347]]}}, {"name": "for very long sequences (documents, images, genomes) this becomes prohibitively expensive", "score": 1.0, "max_score": 1.0, "status": "passed", "output": "Right: for very long inputs the quadratic cost becomes prohibitive.", "visibility": "visible", "tags": ["criterion", "criterion:long-sequences"], "number": null, "output_format": "text", "extra_data": {"evidence": [[515, 528]]}}, {"name": "this motivates efficient variants (sparse, linear, local or hierarchical attention, chunking)", "score": 1.0, "max_score": 1.0, "status": "passed", "output": "Right: this is what motivates sparse, linear, local and hierarchical attention.", "visibility": "visible", "tags": ["criterion", "criterion:remedies"], "number": null, "output_format": "text", "extra_data": {"evidence": [[571, 587]]}}], "output": "", "status": "graded", "extra_data": {"rubric_id": "seed000-q5-quadratic-cost", "rubric_version": 1, "rubric_points": 5.0, "rubric_max_points": 5.0, "evidence": {"all-pairs": [[50, 60]], "quadratic-growth": [[334, 347]], "long-sequences": [[515, 528]], "remedies": [[571, 587]]}, "misconceptions": {}, "execution_time": 0.0025}}, {"item_id": "no-positions", "kind": "choice", "score": 1.0, "max_score": 1.0, "tests": [{"name": "Selected option", "score": 1.0, "max_score": 1.0, "status": "passed", "output": "Correct: B. Self-attention is permutation-invariant: the computation treats every position symmetrically, so shuffling the input tokens produces the same output (just rearranged). The sentences ''the cat chased the dog'' and ''the dog chased the cat'' would produce identical representations after self-attention without positional encodings. Positional encodings inject sequence-order information into the token embeddings before attention operates.", "visibility": "visible", "tags": ["choice"], "number": null, "output_format": "text", "extra_data": {"chosen": "B"}}], "output": "", "status": "graded", "extra_data": {"chosen": "B", "correct": true, "execution_time": 0.0}}]', '{"assignment": 0, "items": {"sdpa": {"problem": "scaled_dot_product_attention"}, "quadratic-cost": {"rubric_id": "seed000-q5-quadratic-cost", "rubric_version": 1}, "no-positions": {}}}');


--
-- Data for Name: idempotency_keys; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.idempotency_keys VALUES (1, 'local', 'attempt-amy-1', '82fd73835fb729825a4a5cf0efe1698ad0ea2ed676473c5b293a5577ffdc8aaa', '4575fb9c-4720-4c52-a284-f9f71d5025f0', '2026-11-30 13:17:11.5839+00');


--
-- Data for Name: regrades; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.regrades VALUES ('b623c7a1-865d-426d-8143-dda3d9477e50', 'local', 'hw-heads', true, 'done', '2026-11-30 13:17:12.441419+00', '2026-11-30 13:17:12.454284+00', '[{"submission_id": "34860635-4008-4d09-a9aa-fe8560fb269f", "learner_id": "cyd", "old_score": 2.6667, "new_score": 2.6667, "difference": 0.0, "applied": false, "max_score": 5.0}]');


--
-- Data for Name: rubrics; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.rubrics VALUES (1, 'local', 'heads-why', 1, '{"id": "heads-why", "question": "Why split attention into several heads?", "max_points": 2, "criteria": [{"id": "patterns", "description": "each head forms its own attention pattern", "points": 1, "concepts": ["different|several|multiple pattern*|relationship*"], "feedback": {"met": "Yes: several patterns at once.", "missed": "Say what several heads buy you."}}, {"id": "subspaces", "description": "heads work in different subspaces", "points": 1, "concepts": ["subspace*"], "feedback": {"met": "Yes: subspaces.", "missed": "Mention the subspaces."}}]}', '
id: heads-why
question: Why split attention into several heads?
max_points: 2
criteria:
  - id: patterns
    description: each head forms its own attention pattern
    points: 1
    concepts: ["different|several|multiple pattern*|relationship*"]
    feedback: {met: "Yes: several patterns at once.", missed: "Say what several heads buy you."}
  - id: subspaces
    description: heads work in different subspaces
    points: 1
    concepts: ["subspace*"]
    feedback: {met: "Yes: subspaces.", missed: "Mention the subspaces."}
', '2026-11-30 13:17:11.522364+00');
INSERT INTO public.rubrics VALUES (2, 'local', 'heads-why', 2, '{"id": "heads-why", "question": "Why split attention into several heads?", "max_points": 3, "criteria": [{"id": "patterns", "description": "each head forms its own attention pattern", "points": 1, "concepts": ["different|several|multiple pattern*|relationship*"], "feedback": {"met": "Yes: several patterns at once.", "missed": "Say what several heads buy you."}}, {"id": "subspaces", "description": "heads work in different subspaces", "points": 1, "concepts": ["subspace*"], "feedback": {"met": "Yes: subspaces.", "missed": "Mention the subspaces."}}, {"id": "concatenated", "description": "outputs are concatenated", "points": 1, "concepts": ["concatenat*"], "feedback": {"met": "Yes.", "missed": "How?"}}]}', '
id: heads-why
question: Why split attention into several heads?
max_points: 3
criteria:
  - id: patterns
    description: each head forms its own attention pattern
    points: 1
    concepts: ["different|several|multiple pattern*|relationship*"]
    feedback: {met: "Yes: several patterns at once.", missed: "Say what several heads buy you."}
  - id: subspaces
    description: heads work in different subspaces
    points: 1
    concepts: ["subspace*"]
    feedback: {met: "Yes: subspaces.", missed: "Mention the subspaces."}
  - id: concatenated
    description: outputs are concatenated
    points: 1
    concepts: ["concatenat*"]
    feedback: {met: "Yes.", missed: "How?"}
', '2026-11-30 13:17:11.526805+00');


--
-- Data for Name: submissions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.submissions VALUES ('4575fb9c-4720-4c52-a284-f9f71d5025f0', 'local', 'attention-basics', 0, 'learner-001', '{"sdpa": {"code": "import numpy as np\n\n\ndef scaled_dot_product_attention(Q, K, V, mask=None):\n    \"\"\"softmax(Q K^T / sqrt(d_k)) V over the key axis; mask True = may attend.\"\"\"\n    d_k = Q.shape[-1]\n    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)\n    if mask is not None:\n        scores = np.where(mask, scores, -np.inf)\n    scores = scores - scores.max(axis=-1, keepdims=True)\n    weights = np.exp(scores)\n    weights = weights / weights.sum(axis=-1, keepdims=True)\n    return weights @ V, weights\n"}, "quadratic-cost": {"text": "Self-attention requires computing a score between every pair of positions: position 1 attends to positions 1 through n, position 2 attends to positions 1 through n, and so on. With n positions, this yields n \u00d7 n = n\u00b2 score computations. Both the memory required to store the attention matrix and the compute required to fill it scale quadratically with n. For short sequences (sentences of ~512 tokens), this is manageable. For very long sequences (documents, high-resolution images, genomic sequences), it becomes prohibitively expensive \u2014 motivating architectures like sparse attention, linear attention, and hierarchical approaches that reduce this cost at the expense of some modeling flexibility.\n"}, "no-positions": {"choice": "B"}}', '26f31caf52405eaf9e28a224645a7bd659fd25e43134a00a6034bbf40b2b7c61', 'graded', '2026-11-30 13:17:11.5839+00', '2026-11-30 13:17:11.5839+00', '2026-11-30 13:17:11.587102+00', '2026-11-30 13:17:11.916849+00', 1, 16, 16, '[{"item_id": "sdpa", "kind": "code", "score": 10.0, "max_score": 10.0, "tests": [{"name": "example: cross-attention, Lq=2, Lk=3, d_k=4, d_v=2, no mask", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "visible", "tags": ["scaling", "visible"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "example: causal mask, L=3, d_k=1", "score": 0.3333, "max_score": 0.3333, "status": "passed", "output": "Passed.", "visibility": "visible", "tags": ["masking", "visible"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "example: batch of 2, Lq=2, Lk=3, d_k=1, d_v=2", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "visible", "tags": ["softmax", "visible"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "shapes: batch axis, Lq != Lk, d_v != d_k", "score": 0.3333, "max_score": 0.3333, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["shapes", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "shapes: batch and heads axes (B, H, Lq, Lk)", "score": 0.3333, "max_score": 0.3333, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["shapes", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "shapes: no batch axis", "score": 0.3333, "max_score": 0.3333, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["shapes", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "scaling: batched cross-attention with a large d_k", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["scaling", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "scaling: heads axis with an odd d_k", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["scaling", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "scaling: no batch axis, d_k a perfect square", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["scaling", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "softmax: weights normalised over the key axis (batch, Lq != Lk)", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["softmax", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "softmax: rows sum to 1 with batch and heads axes", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["softmax", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "values: identical keys give the mean of the values", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["values", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "values: a dominant key selects its value vector", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["values", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "masking: causal mask (L, L) with a batch axis", "score": 0.3333, "max_score": 0.3333, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["masking", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "masking: key-padding mask (B, 1, 1, Lk) with heads", "score": 0.3333, "max_score": 0.3333, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["masking", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "masking: per-example mask (B, Lq, Lk), Lq != Lk", "score": 0.3333, "max_score": 0.3333, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["masking", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "masking: mask (B, 1, Lq, Lk) shared by the heads", "score": 0.3333, "max_score": 0.3333, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["masking", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "masking: rows with every key blocked are left out", "score": 0.3333, "max_score": 0.3333, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["masking", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "stability: logits in the thousands (float64)", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["stability", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "stability: logits in the hundreds (float32)", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["stability", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "properties: permutation equivariance", "score": 0.1667, "max_score": 0.1667, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["properties", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "properties: a sequence of length 1 returns v_1", "score": 0.1667, "max_score": 0.1667, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["properties", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "properties: one dominant score gives a one-hot weight row", "score": 0.1667, "max_score": 0.1667, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["properties", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "dtypes: float32 inputs", "score": 0.5, "max_score": 0.5, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["dtypes", "hidden"], "number": null, "output_format": "text", "extra_data": {}}, {"name": "inputs: Q, K, V and mask are not modified in place", "score": 0.5002, "max_score": 0.5002, "status": "passed", "output": "Passed.", "visibility": "hidden", "tags": ["inputs", "hidden"], "number": null, "output_format": "text", "extra_data": {}}], "output": "22 hidden tests ran; they are worth 8.67 of the 10 points and count towards your score. The 3 visible examples are worth the other 1.33 points. You scored 10 of 10 (passed 25 of 25 tests).", "status": "graded", "extra_data": {"problem": "scaled_dot_product_attention", "sandbox_seconds": 0.0229, "grading_seconds": 0.3235, "diagnoses": [], "execution_time": 0.3235}}, {"item_id": "quadratic-cost", "kind": "text", "score": 5.0, "max_score": 5.0, "tests": [{"name": "a score is computed between every pair of positions (an n x n score matrix)", "score": 2.0, "max_score": 2.0, "status": "passed", "output": "Right: every position is scored against every position, so there are n x n scores.", "visibility": "visible", "tags": ["criterion", "criterion:all-pairs"], "number": null, "output_format": "text", "extra_data": {"evidence": [[50, 60]]}}, {"name": "memory and compute grow quadratically with sequence length", "score": 1.0, "max_score": 1.0, "status": "passed", "output": "Right: both the attention matrix''s memory and the compute to fill it grow quadratically in n.", "visibility": "visible", "tags": ["criterion", "criterion:quadratic-growth"], "number": null, "output_format": "text", "extra_data": {"evidence": [[334, 347]]}}, {"name": "for very long sequences (documents, images, genomes) this becomes prohibitively expensive", "score": 1.0, "max_score": 1.0, "status": "passed", "output": "Right: for very long inputs the quadratic cost becomes prohibitive.", "visibility": "visible", "tags": ["criterion", "criterion:long-sequences"], "number": null, "output_format": "text", "extra_data": {"evidence": [[515, 528]]}}, {"name": "this motivates efficient variants (sparse, linear, local or hierarchical attention, chunking)", "score": 1.0, "max_score": 1.0, "status": "passed", "output": "Right: this is what motivates sparse, linear, local and hierarchical attention.", "visibility": "visible", "tags": ["criterion", "criterion:remedies"], "number": null, "output_format": "text", "extra_data": {"evidence": [[571, 587]]}}], "output": "", "status": "graded", "extra_data": {"rubric_id": "seed000-q5-quadratic-cost", "rubric_version": 1, "rubric_points": 5.0, "rubric_max_points": 5.0, "evidence": {"all-pairs": [[50, 60]], "quadratic-growth": [[334, 347]], "long-sequences": [[515, 528]], "remedies": [[571, 587]]}, "misconceptions": {}, "execution_time": 0.0025}}, {"item_id": "no-positions", "kind": "choice", "score": 1.0, "max_score": 1.0, "tests": [{"name": "Selected option", "score": 1.0, "max_score": 1.0, "status": "passed", "output": "Correct: B. Self-attention is permutation-invariant: the computation treats every position symmetrically, so shuffling the input tokens produces the same output (just rearranged). The sentences ''the cat chased the dog'' and ''the dog chased the cat'' would produce identical representations after self-attention without positional encodings. Positional encodings inject sequence-order information into the token embeddings before attention operates.", "visibility": "visible", "tags": ["choice"], "number": null, "output_format": "text", "extra_data": {"chosen": "B"}}], "output": "", "status": "graded", "extra_data": {"chosen": "B", "correct": true, "execution_time": 0.0}}]', NULL, 'http://127.0.0.1:44245/hook', 'attempt-amy-1');
INSERT INTO public.submissions VALUES ('24259527-4062-4336-9691-7e6bae841999', 'local', 'attention-basics', 0, 'ann', '{"no-positions": {"choice": "B"}}', '796c772d7ccc29f21d3e182beebdbfc643040d607ec878532b005c781d3b58d5', 'graded', '2026-11-30 13:17:11.595943+00', '2026-11-30 13:17:11.595943+00', '2026-11-30 13:17:11.603023+00', '2026-11-30 13:17:11.604636+00', 1, 1, 16, '[{"item_id": "sdpa", "kind": "code", "score": 0.0, "max_score": 10.0, "tests": [{"name": "Response submitted", "score": 0.0, "max_score": 10.0, "status": "failed", "output": "No response was submitted for this item, so it scores 0.", "visibility": "visible", "tags": ["missing"], "number": null, "output_format": "text", "extra_data": {}}], "output": "No response was submitted for this item, so it scores 0.", "status": "graded", "extra_data": {}}, {"item_id": "quadratic-cost", "kind": "text", "score": 0.0, "max_score": 5.0, "tests": [{"name": "Response submitted", "score": 0.0, "max_score": 5.0, "status": "failed", "output": "No response was submitted for this item, so it scores 0.", "visibility": "visible", "tags": ["missing"], "number": null, "output_format": "text", "extra_data": {}}], "output": "No response was submitted for this item, so it scores 0.", "status": "graded", "extra_data": {}}, {"item_id": "no-positions", "kind": "choice", "score": 1.0, "max_score": 1.0, "tests": [{"name": "Selected option", "score": 1.0, "max_score": 1.0, "status": "passed", "output": "Correct: B. Self-attention is permutation-invariant: the computation treats every position symmetrically, so shuffling the input tokens produces the same output (just rearranged). The sentences ''the cat chased the dog'' and ''the dog chased the cat'' would produce identical representations after self-attention without positional encodings. Positional encodings inject sequence-order information into the token embeddings before attention operates.", "visibility": "visible", "tags": ["choice"], "number": null, "output_format": "text", "extra_data": {"chosen": "B"}}], "output": "", "status": "graded", "extra_data": {"chosen": "B", "correct": true, "execution_time": 0.0}}]', NULL, 'http://127.0.0.1:44245/hook', NULL);
INSERT INTO public.submissions VALUES ('623ffcfe-2d9f-4a6c-8219-2f9cb6322814', 'local', 'attention-basics', 0, 'bob', '{"no-positions": {"choice": "A"}}', 'a752bdcb94a4821987f6f05c03875850a22699f533eab7902c9e2c92a5cb9660', 'graded', '2026-11-30 13:17:11.608502+00', '2026-11-30 13:17:11.608502+00', '2026-11-30 13:17:11.634245+00', '2026-11-30 13:17:11.63961+00', 1, 0, 16, '[{"item_id": "sdpa", "kind": "code", "score": 0.0, "max_score": 10.0, "tests": [{"name": "Response submitted", "score": 0.0, "max_score": 10.0, "status": "failed", "output": "No response was submitted for this item, so it scores 0.", "visibility": "visible", "tags": ["missing"], "number": null, "output_format": "text", "extra_data": {}}], "output": "No response was submitted for this item, so it scores 0.", "status": "graded", "extra_data": {}}, {"item_id": "quadratic-cost", "kind": "text", "score": 0.0, "max_score": 5.0, "tests": [{"name": "Response submitted", "score": 0.0, "max_score": 5.0, "status": "failed", "output": "No response was submitted for this item, so it scores 0.", "visibility": "visible", "tags": ["missing"], "number": null, "output_format": "text", "extra_data": {}}], "output": "No response was submitted for this item, so it scores 0.", "status": "graded", "extra_data": {}}, {"item_id": "no-positions", "kind": "choice", "score": 0.0, "max_score": 1.0, "tests": [{"name": "Selected option", "score": 0.0, "max_score": 1.0, "status": "failed", "output": "Incorrect: you chose A; the answer is B. Self-attention is permutation-invariant: the computation treats every position symmetrically, so shuffling the input tokens produces the same output (just rearranged). The sentences ''the cat chased the dog'' and ''the dog chased the cat'' would produce identical representations after self-attention without positional encodings. Positional encodings inject sequence-order information into the token embeddings before attention operates.", "visibility": "visible", "tags": ["choice"], "number": null, "output_format": "text", "extra_data": {"chosen": "A"}}], "output": "", "status": "graded", "extra_data": {"chosen": "A", "correct": false, "execution_time": 0.0}}]', NULL, 'http://127.0.0.1:43875/hook', NULL);
INSERT INTO public.submissions VALUES ('34860635-4008-4d09-a9aa-fe8560fb269f', 'local', 'hw-heads', 2, 'cyd', '{"why-heads": {"text": "Different patterns in different subspaces."}, "pick": {"choice": "B"}}', 'b016570a3e3921eb4547fa1afc1ade0378c9072b5c7b5ffffa4c7152ff2c01db', 'graded', '2026-11-30 13:17:11.629294+00', '2026-11-30 13:17:11.629294+00', '2026-11-30 13:17:11.645513+00', '2026-11-30 13:17:11.650315+00', 1, 2.6667, 5, '[{"item_id": "why-heads", "kind": "text", "score": 2.6667, "max_score": 4.0, "tests": [{"name": "each head forms its own attention pattern", "score": 1.3333, "max_score": 1.3333, "status": "passed", "output": "Yes: several patterns at once.", "visibility": "visible", "tags": ["criterion", "criterion:patterns"], "number": null, "output_format": "text", "extra_data": {"evidence": [[0, 18]]}}, {"name": "heads work in different subspaces", "score": 1.3333, "max_score": 1.3333, "status": "passed", "output": "Yes: subspaces.", "visibility": "visible", "tags": ["criterion", "criterion:subspaces"], "number": null, "output_format": "text", "extra_data": {"evidence": [[32, 41]]}}, {"name": "outputs are concatenated", "score": 0.0, "max_score": 1.3334, "status": "failed", "output": "How?", "visibility": "visible", "tags": ["criterion", "criterion:concatenated"], "number": null, "output_format": "text", "extra_data": {"evidence": []}}, {"name": "Adjustment to the item score", "score": 0.0001, "max_score": 0.0, "status": "passed", "output": "Adjusted so the tests add up to the rubric''s score.", "visibility": "visible", "tags": ["adjustment"], "number": null, "output_format": "text", "extra_data": {}}], "output": "", "status": "graded", "extra_data": {"rubric_id": "heads-why", "rubric_version": 2, "rubric_points": 2.0, "rubric_max_points": 3.0, "evidence": {"patterns": [[0, 18]], "subspaces": [[32, 41]], "concatenated": []}, "misconceptions": {}, "execution_time": 0.0005}}, {"item_id": "pick", "kind": "choice", "score": 0.0, "max_score": 1.0, "tests": [{"name": "Selected option", "score": 0.0, "max_score": 1.0, "status": "failed", "output": "Incorrect: you chose B; the answer is A. A is the key.", "visibility": "visible", "tags": ["choice"], "number": null, "output_format": "text", "extra_data": {"chosen": "B"}}], "output": "", "status": "graded", "extra_data": {"chosen": "B", "correct": false, "execution_time": 0.0}}]', NULL, NULL, NULL);
INSERT INTO public.submissions VALUES ('21ee403d-8e77-47f2-88fe-303e33d6d82d', 'cs401', 'attention-basics', 0, 'dee', '{"no-positions": {"choice": "B"}}', '2a4b822112be45a2d2b5216a453523ba71f67baee96c6cd58c14cf86adeb0420', 'graded', '2026-11-30 13:17:11.637798+00', '2026-11-30 13:17:11.637798+00', '2026-11-30 13:17:11.651783+00', '2026-11-30 13:17:11.652828+00', 1, 1, 16, '[{"item_id": "sdpa", "kind": "code", "score": 0.0, "max_score": 10.0, "tests": [{"name": "Response submitted", "score": 0.0, "max_score": 10.0, "status": "failed", "output": "No response was submitted for this item, so it scores 0.", "visibility": "visible", "tags": ["missing"], "number": null, "output_format": "text", "extra_data": {}}], "output": "No response was submitted for this item, so it scores 0.", "status": "graded", "extra_data": {}}, {"item_id": "quadratic-cost", "kind": "text", "score": 0.0, "max_score": 5.0, "tests": [{"name": "Response submitted", "score": 0.0, "max_score": 5.0, "status": "failed", "output": "No response was submitted for this item, so it scores 0.", "visibility": "visible", "tags": ["missing"], "number": null, "output_format": "text", "extra_data": {}}], "output": "No response was submitted for this item, so it scores 0.", "status": "graded", "extra_data": {}}, {"item_id": "no-positions", "kind": "choice", "score": 1.0, "max_score": 1.0, "tests": [{"name": "Selected option", "score": 1.0, "max_score": 1.0, "status": "passed", "output": "Correct: B. Self-attention is permutation-invariant: the computation treats every position symmetrically, so shuffling the input tokens produces the same output (just rearranged). The sentences ''the cat chased the dog'' and ''the dog chased the cat'' would produce identical representations after self-attention without positional encodings. Positional encodings inject sequence-order information into the token embeddings before attention operates.", "visibility": "visible", "tags": ["choice"], "number": null, "output_format": "text", "extra_data": {"chosen": "B"}}], "output": "", "status": "graded", "extra_data": {"chosen": "B", "correct": true, "execution_time": 0.0}}]', NULL, NULL, NULL);
INSERT INTO public.submissions VALUES ('d5d53467-965d-4c1d-8ef0-fa0aaee2b92e', 'local', 'attention-basics', 0, 'eve', '{"no-positions": {"choice": "A"}}', '316e29e2e58b09095bead0c42b8aef0ee17624a5e08b903bc30f1f97d422b253', 'failed', '2026-11-30 13:17:12.436244+00', '2026-11-30 13:17:12.436244+00', NULL, '2026-11-30 13:17:12.437269+00', 0, NULL, NULL, 'null', 'infrastructure fault after 3 attempt(s): sandbox unavailable', NULL, NULL);


--
-- Data for Name: webhook_deliveries; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.webhook_deliveries VALUES ('4b12cf9c-790b-4017-91d1-c07c12de684d', 'local', '24259527-4062-4336-9691-7e6bae841999', 'submission.graded', 'http://127.0.0.1:44245/hook', '{"id": "4b12cf9c-790b-4017-91d1-c07c12de684d", "type": "submission.graded", "created_at": "2026-11-30T13:17:11.616821+00:00", "submission": {"id": "24259527-4062-4336-9691-7e6bae841999", "assignment_id": "attention-basics", "learner_id": "ann", "status": "graded", "score": 1.0, "max_score": 16.0, "received_at": "2026-11-30T13:17:11.595943+00:00", "finished_at": "2026-11-30T13:17:11.604636+00:00", "failure_reason": null, "url": "/api/v1/submissions/24259527-4062-4336-9691-7e6bae841999"}}', 'delivered', 1, '2026-11-30 13:17:11.616841+00', '2026-11-30 13:17:46.618768+00', '2026-12-01 14:17:11.616841+00', 200, NULL, '2026-11-30 13:17:11.632741+00');
INSERT INTO public.webhook_deliveries VALUES ('0c55dbe8-f320-482a-a7b2-16f3378b5e27', 'local', '623ffcfe-2d9f-4a6c-8219-2f9cb6322814', 'submission.graded', 'http://127.0.0.1:43875/hook', '{"id": "0c55dbe8-f320-482a-a7b2-16f3378b5e27", "type": "submission.graded", "created_at": "2026-11-30T13:17:11.644070+00:00", "submission": {"id": "623ffcfe-2d9f-4a6c-8219-2f9cb6322814", "assignment_id": "attention-basics", "learner_id": "bob", "status": "graded", "score": 0.0, "max_score": 16.0, "received_at": "2026-11-30T13:17:11.608502+00:00", "finished_at": "2026-11-30T13:17:11.639610+00:00", "failure_reason": null, "url": "/api/v1/submissions/623ffcfe-2d9f-4a6c-8219-2f9cb6322814"}}', 'pending', 1, '2026-11-30 13:17:11.644087+00', '2026-11-30 14:01:53.738699+00', '2026-12-01 14:17:11.644087+00', 500, 'HTTP 500', NULL);
INSERT INTO public.webhook_deliveries VALUES ('4a9c1230-ef2e-4ec8-8fad-3c0adb86b4f9', 'local', '4575fb9c-4720-4c52-a284-f9f71d5025f0', 'submission.graded', 'http://127.0.0.1:44245/hook', '{"id": "4a9c1230-ef2e-4ec8-8fad-3c0adb86b4f9", "type": "submission.graded", "created_at": "2026-11-30T13:17:11.919334+00:00", "submission": {"id": "4575fb9c-4720-4c52-a284-f9f71d5025f0", "assignment_id": "attention-basics", "learner_id": "learner-001", "status": "graded", "score": 16.0, "max_score": 16.0, "received_at": "2026-11-30T13:17:11.583900+00:00", "finished_at": "2026-11-30T13:17:11.916849+00:00", "failure_reason": null, "url": "/api/v1/submissions/4575fb9c-4720-4c52-a284-f9f71d5025f0"}}', 'pending', 1, '2026-11-30 13:17:11.919353+00', '2026-11-30 13:17:12.434755+00', '2026-12-01 14:17:12.434755+00', 200, NULL, '2026-11-30 13:17:11.928257+00');


--
-- Name: assignments_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.assignments_id_seq', 3, false);


--
-- Name: grade_records_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.grade_records_id_seq', 6, false);


--
-- Name: idempotency_keys_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.idempotency_keys_id_seq', 2, false);


--
-- Name: rubrics_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.rubrics_id_seq', 3, false);


--
-- Name: api_keys api_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);


--
-- Name: assignments assignments_course_id_assignment_id_version_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.assignments
    ADD CONSTRAINT assignments_course_id_assignment_id_version_key UNIQUE (course_id, assignment_id, version);


--
-- Name: assignments assignments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.assignments
    ADD CONSTRAINT assignments_pkey PRIMARY KEY (id);


--
-- Name: courses courses_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.courses
    ADD CONSTRAINT courses_pkey PRIMARY KEY (id);


--
-- Name: grade_records grade_records_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.grade_records
    ADD CONSTRAINT grade_records_pkey PRIMARY KEY (id);


--
-- Name: idempotency_keys idempotency_keys_course_id_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.idempotency_keys
    ADD CONSTRAINT idempotency_keys_course_id_key_key UNIQUE (course_id, key);


--
-- Name: idempotency_keys idempotency_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.idempotency_keys
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (id);


--
-- Name: regrades regrades_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.regrades
    ADD CONSTRAINT regrades_pkey PRIMARY KEY (id);


--
-- Name: rubrics rubrics_course_id_rubric_id_version_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rubrics
    ADD CONSTRAINT rubrics_course_id_rubric_id_version_key UNIQUE (course_id, rubric_id, version);


--
-- Name: rubrics rubrics_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rubrics
    ADD CONSTRAINT rubrics_pkey PRIMARY KEY (id);


--
-- Name: submissions submissions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submissions
    ADD CONSTRAINT submissions_pkey PRIMARY KEY (id);


--
-- Name: webhook_deliveries webhook_deliveries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);


--
-- Name: ix_assignments_course_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_assignments_course_id ON public.assignments USING btree (course_id);


--
-- Name: ix_grade_records_submission_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_grade_records_submission_id ON public.grade_records USING btree (submission_id);


--
-- Name: ix_regrades_course_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_regrades_course_id ON public.regrades USING btree (course_id);


--
-- Name: ix_rubrics_course_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_rubrics_course_id ON public.rubrics USING btree (course_id);


--
-- Name: ix_submissions_assignment_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_submissions_assignment_id ON public.submissions USING btree (assignment_id);


--
-- Name: ix_submissions_course_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_submissions_course_id ON public.submissions USING btree (course_id);


--
-- Name: ix_submissions_learner_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_submissions_learner_id ON public.submissions USING btree (learner_id);


--
-- Name: ix_submissions_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_submissions_status ON public.submissions USING btree (status);


--
-- Name: ix_webhook_deliveries_course_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_webhook_deliveries_course_id ON public.webhook_deliveries USING btree (course_id);


--
-- Name: ix_webhook_deliveries_submission_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_webhook_deliveries_submission_id ON public.webhook_deliveries USING btree (submission_id);


--
-- Name: api_keys api_keys_course_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_course_id_fkey FOREIGN KEY (course_id) REFERENCES public.courses(id);


--
-- Name: grade_records grade_records_submission_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.grade_records
    ADD CONSTRAINT grade_records_submission_id_fkey FOREIGN KEY (submission_id) REFERENCES public.submissions(id);


--
-- PostgreSQL database dump complete
--

\unrestrict 6eackgy8x9Gtf3OfhrJ21w3cFuAUxrbewYfD3uxeD91N1GfeyQZfYHoiMofQdNd

