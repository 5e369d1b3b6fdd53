import { defaultPollDelayMs } from '../../../workers/task-context';
import { parseTaskEvent } from '../../../src/tasks/task-event';
import { looksLikeTaskId, newTaskId } from '../../../src/tasks/task-id';
import { toTaskView, type TaskRow } from '../../../src/tasks/task-record';
import { parseLastEventId } from '../../../src/tasks/stream-task-events';

describe('task ids', () => {
  it('are task_ + 32 base62 characters, and never repeat', () => {
    const ids = new Set(Array.from({ length: 2_000 }, () => newTaskId()));
    expect(ids.size).toBe(2_000);
    for (const id of ids) expect(id).toMatch(/^task_[A-Za-z0-9]{32}$/);
  });

  it('are recognized by shape before any lookup', () => {
    expect(looksLikeTaskId(newTaskId())).toBe(true);
    expect(looksLikeTaskId('task_1')).toBe(false);
    expect(looksLikeTaskId("task_abc' OR 1=1 --xxxxxxxxxxx")).toBe(false);
    expect(looksLikeTaskId('resp_abcdefabcdefabcdefabcdef')).toBe(false);
  });
});

describe('the public task view', () => {
  const base: TaskRow = {
    id: 'task_x',
    account_id: 1,
    api_key_id: 2,
    kind: 'video',
    model: 'veo-3',
    status: 'running',
    progress: 40,
    request: {
      kind: 'video',
      prompt: 'p',
      durationSeconds: 4,
      resolution: '720p',
      aspectRatio: '16:9',
      group: { groupId: 1, groupName: 'default', groupFamily: null },
    },
    provider_ref: 'models/veo-3/operations/1',
    upstream_account_id: 3,
    result: { items: [{ key: 'tasks/task_x/video-0.mp4', url: 'http://s3/v.mp4', contentType: 'video/mp4' }] },
    error: null,
    estimated_credits: 600_000,
    actual_credits: null,
    event_seq: 3,
    deadline_at: new Date(10_000_000),
    created_at: new Date(1_000_000),
    started_at: new Date(2_000_000),
    finished_at: null,
    updated_at: new Date(3_000_000),
  };

  it('hides partial results and internals until the task succeeded', () => {
    const view = toTaskView(base);
    expect(view).toEqual({
      task_id: 'task_x',
      object: 'task',
      kind: 'video',
      model: 'veo-3',
      status: 'running',
      progress: 40,
      created_at: 1_000,
      started_at: 2_000,
      finished_at: null,
      updated_at: 3_000,
      deadline_at: 10_000,
      result: null,
      error: null,
      estimated_credits: 600_000,
      actual_credits: null,
    });
    expect(JSON.stringify(view)).not.toContain('operations');
  });

  it('shows URLs without object keys once succeeded', () => {
    const view = toTaskView({ ...base, status: 'succeeded', progress: 100, actual_credits: 600_000, finished_at: new Date(4_000_000) });
    expect(view.result).toEqual({ urls: ['http://s3/v.mp4'], items: [{ url: 'http://s3/v.mp4', content_type: 'video/mp4' }] });
    expect(JSON.stringify(view)).not.toContain('tasks/task_x/video-0.mp4');
  });
});

describe('stream helpers', () => {
  it.each([
    ['7', 7],
    [' 12 ', 12],
    [['3', '4'], 3],
    ['', undefined],
    ['abc', undefined],
    ['-1', undefined],
    [undefined, undefined],
  ])('Last-Event-ID %p → %p', (value, expected) => {
    expect(parseLastEventId(value)).toBe(expected);
  });

  it('parses published events and ignores garbage', () => {
    expect(parseTaskEvent(JSON.stringify({ seq: 2, task: { status: 'running' } }))).toEqual({ seq: 2, task: { status: 'running' } });
    expect(parseTaskEvent('{"seq":"2","task":{}}')).toBeUndefined();
    expect(parseTaskEvent('not json')).toBeUndefined();
  });
});

describe('poll cadence', () => {
  it('is every 2 s for the first minute, then every 5 s', () => {
    expect(defaultPollDelayMs(0)).toBe(2_000);
    expect(defaultPollDelayMs(59_999)).toBe(2_000);
    expect(defaultPollDelayMs(60_000)).toBe(5_000);
    expect(defaultPollDelayMs(170_000)).toBe(5_000);
  });
});
