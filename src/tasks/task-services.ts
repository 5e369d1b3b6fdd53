/** The task endpoints are built from the same services as the image endpoints. */
export type { MediaServices as TaskServices } from '../images/media-services';
