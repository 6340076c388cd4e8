"""The long-span experiment: configuration, the resumable runner, reports and NarrativeQA grounding."""
