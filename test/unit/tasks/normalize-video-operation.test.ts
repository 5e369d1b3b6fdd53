import { normalizeVideoOperation } from '../../../src/tasks/normalize-video-operation';

describe('normalizeVideoOperation', () => {
  it.each([
    ['not done', { name: 'models/veo-3/operations/a', done: false, metadata: {} }, { state: 'running' }],
    ['done absent', { name: 'models/veo-3/operations/a' }, { state: 'running' }],
    ['running with progress', { name: 'op', metadata: { progressPercent: 42.7 } }, { state: 'running', progress: 42 }],
    ['running with nonsense progress', { name: 'op', metadata: { progressPercent: 420 } }, { state: 'running' }],
    [
      'done with samples',
      {
        name: 'op',
        done: true,
        response: { generateVideoResponse: { generatedSamples: [{ video: { uri: 'http://sim/v1beta/files/x:download?alt=media' } }] } },
      },
      { state: 'succeeded', videos: [{ uri: 'http://sim/v1beta/files/x:download?alt=media', mimeType: 'video/mp4' }] },
    ],
    [
      'SDK shape',
      { done: true, response: { generatedVideos: [{ video: { uri: 'u', mimeType: 'video/webm' } }] } },
      { state: 'succeeded', videos: [{ uri: 'u', mimeType: 'video/webm' }] },
    ],
    [
      'inline bytes',
      { done: true, response: { generateVideoResponse: { generatedSamples: [{ video: { bytesBase64Encoded: 'AAAA' } }] } } },
      { state: 'succeeded', videos: [{ inlineData: 'AAAA', mimeType: 'video/mp4' }] },
    ],
    [
      'done with error',
      { name: 'op', done: true, error: { code: 3, message: 'bad prompt', status: 'INVALID_ARGUMENT' } },
      { state: 'failed', code: 'provider_error', message: 'bad prompt' },
    ],
    [
      'cancelled upstream',
      { done: true, error: { code: 1, message: 'Operation cancelled', status: 'CANCELLED' } },
      { state: 'failed', code: 'cancelled_upstream', message: 'Operation cancelled' },
    ],
    [
      'filtered',
      { done: true, response: { generateVideoResponse: { raiMediaFilteredCount: 1, raiMediaFilteredReasons: ['unsafe content'] } } },
      { state: 'failed', code: 'content_filtered', message: 'the provider filtered the video: unsafe content' },
    ],
    [
      'done and empty',
      { done: true, response: { generateVideoResponse: {} } },
      { state: 'failed', code: 'provider_error', message: 'the provider finished without a video' },
    ],
    [
      'garbage',
      'not an object',
      { state: 'failed', code: 'provider_error', message: 'the provider answered an operation of unknown shape' },
    ],
  ])('%s', (_label, body, expected) => {
    expect(normalizeVideoOperation(body)).toEqual(expected);
  });
});
