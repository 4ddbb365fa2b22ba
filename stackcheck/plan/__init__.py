"""Planning a training job: memory per GPU before OOM, instance choice, parallel layout."""
