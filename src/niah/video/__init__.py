"""Video as a shared stage: frame sampling (files and frame folders), subtitles aligned to frames, tokens.

Names no benchmark; benchmark families build on it.
"""

from niah.video.accounting import VideoTokens, count_video_tokens
from niah.video.frames import (
    Frame,
    FrameSample,
    VideoInfo,
    VideoLimits,
    encode_jpeg,
    fps_times,
    frames_at,
    iter_frames_at,
    list_frame_folder,
    plan_times,
    probe,
    sample_frame_folder,
    sample_video,
    uniform_times,
)
from niah.video.subtitles import (
    SUBTITLE_MODES,
    Cue,
    SubtitleMode,
    align_to_frames,
    frame_spans,
    load_subtitles,
    parse_srt,
    parse_vtt,
    transcript,
)

__all__ = [
    "SUBTITLE_MODES", "Cue", "Frame", "FrameSample", "SubtitleMode", "VideoInfo", "VideoLimits", "VideoTokens",
    "align_to_frames", "count_video_tokens", "encode_jpeg", "fps_times", "frame_spans", "frames_at",
    "iter_frames_at", "list_frame_folder", "load_subtitles", "parse_srt", "parse_vtt", "plan_times", "probe",
    "sample_frame_folder", "sample_video", "transcript", "uniform_times",
]
